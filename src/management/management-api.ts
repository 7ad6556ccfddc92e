import type { AuthRule } from '../platform/auth/request-context.js';
import { AppError } from '../platform/errors/app-error.js';

/**
 * The management and partner interfaces: a merchant's or partner's token and key. Most of their operations name no
 * sales unit (a partner's merchants, its price packages), so they act for the principal as a whole; an MSN, when
 * sent, is checked like any other and narrows a partner to that merchant (management-access.ts).
 */
export const MANAGEMENT_AUTH = { method: 'bearer', accepts: ['merchant', 'partner'], scope: 'principal' } satisfies AuthRule;

/** Spec 3: `Idempotency-Key` 1 to 50 letters, digits or `-`. */
export function checkIdempotencyKeyFormat(key: string): string {
  if (!/^[A-Za-z0-9-]{1,50}$/.test(key)) {
    throw AppError.validation([{ name: 'Idempotency-Key', reason: 'Must be 1 to 50 letters, digits or "-"' }]);
  }
  return key;
}
