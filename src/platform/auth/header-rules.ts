import { AppError, type ErrorDetail } from '../errors/app-error.js';
import type { HeaderLookup } from './header-lookup.js';

/**
 * A merchant serial number: 4 to 6 digits. The one definition every face reads (headers, path parameters, cursors,
 * the OpenAPI documents, onboarding); PSP signup's 5 or 6 digits is that interface's own rule.
 */
export const MSN_PATTERN = /^[0-9]{4,6}$/;
/** Why a value is not an MSN, in the words every face answers with. */
export const MSN_FORMAT = `Must be 4 to 6 digits (${MSN_PATTERN.source})`;
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const SYSTEM_HEADERS = ['System-Name', 'System-Version', 'System-Plugin-Name', 'System-Plugin-Version'] as const;

/** What an interface asks of a request's headers, checked before any credential so a bad value is a 400. */
export interface HeaderRules {
  msn: 'required' | 'optional';
  /**
   * The `Svc-System-*` headers (the public definitions call them `Vipps-System-*`, also accepted): `maxLength`
   * is 30 for ePayment and webhooks, 100 for order management; some interfaces require all four.
   */
  systemHeaders: { presence: 'required' | 'optional'; maxLength: number };
  /** PSP interfaces: the PSP names itself; it must be the PSP the credentials belong to. */
  pspId?: 'required';
  /** PSP token payments: the user's agreement token. */
  userToken?: 'required';
  /**
   * Checkout: `client_id`/`client_secret` travel on every request instead of a token. Declared here for the
   * interface's documentation; checking them is authentication's job (a missing one is a 401, not a 400).
   */
  clientCredentials?: 'required';
}

export interface RequestHeaders {
  msn: string | undefined;
  /** Present exactly when the route is idempotent (then required). */
  idempotencyKey: string | undefined;
  pspId: string | undefined;
  userToken: string | undefined;
}

/** Checks the format of every header a rule names; every problem is reported at once. */
export function readHeaders(lookup: HeaderLookup, rules: HeaderRules, idempotent: boolean): RequestHeaders {
  const details: ErrorDetail[] = [];
  const msn = lookup('Merchant-Serial-Number');
  if (msn === undefined) {
    if (rules.msn === 'required') details.push({ name: 'Merchant-Serial-Number', reason: 'The header is required' });
  } else if (!MSN_PATTERN.test(msn)) {
    details.push({ name: 'Merchant-Serial-Number', reason: MSN_FORMAT });
  }
  const idempotencyKey = lookup('Idempotency-Key');
  if (idempotent) {
    if (idempotencyKey === undefined) details.push({ name: 'Idempotency-Key', reason: 'The header is required' });
    else if (idempotencyKey.length > 50) details.push({ name: 'Idempotency-Key', reason: 'Must be at most 50 characters' });
  }
  details.push(...systemHeaderProblems(lookup, rules.systemHeaders));
  const pspId = lookup('Psp-Id');
  if (rules.pspId === 'required') {
    if (pspId === undefined) details.push({ name: 'Psp-Id', reason: 'The header is required' });
    else if (!UUID_PATTERN.test(pspId)) details.push({ name: 'Psp-Id', reason: 'Must be a UUID' });
  }
  const userToken = lookup('User-Token');
  if (rules.userToken === 'required' && userToken === undefined) details.push({ name: 'User-Token', reason: 'The header is required' });
  if (details.length > 0) throw AppError.validation(details);
  return {
    msn,
    idempotencyKey: idempotent ? idempotencyKey : undefined,
    pspId: rules.pspId ? pspId : undefined,
    userToken: rules.userToken ? userToken : undefined,
  };
}

function systemHeaderProblems(lookup: HeaderLookup, rule: HeaderRules['systemHeaders']): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const prefix of ['Svc-', 'Vipps-']) {
    for (const suffix of SYSTEM_HEADERS) {
      const value = lookup(prefix + suffix);
      if (value !== undefined && value.length > rule.maxLength) {
        details.push({ name: prefix + suffix, reason: `Must be at most ${rule.maxLength} characters` });
      }
    }
  }
  if (rule.presence === 'required') {
    for (const suffix of SYSTEM_HEADERS) {
      if (lookup(`Svc-${suffix}`) === undefined && lookup(`Vipps-${suffix}`) === undefined) {
        details.push({ name: `Svc-${suffix}`, reason: 'The header is required' });
      }
    }
  }
  return details;
}
