import { AppError, type ErrorDetail } from '../errors/app-error.js';
import type { HttpRequest } from './http-types.js';

/** A header's value, with an empty value treated as absent: real clients send empty optional headers. */
export function header(request: HttpRequest, name: string): string | undefined {
  const raw = request.headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

export const MSN_PATTERN = /^[0-9]{4,6}$/;
const SYSTEM_HEADERS = ['System-Name', 'System-Version', 'System-Plugin-Name', 'System-Plugin-Version'];

export interface HeaderRules {
  msn: 'required' | 'optional';
  idempotencyKey: 'required' | 'absent';
  /** Longest allowed value of the `Svc-System-*` headers (30 for ePayment and webhooks, 100 for order management). */
  systemHeaderMaxLength: number;
}

export interface RequestHeaders {
  msn: string | undefined;
  idempotencyKey: string | undefined;
}

/** Checks the format of every header a rule names, so a malformed value is a 400 before any credential check. */
export function readHeaders(request: HttpRequest, rules: HeaderRules): RequestHeaders {
  const details: ErrorDetail[] = [];
  const msn = header(request, 'Merchant-Serial-Number');
  if (msn === undefined) {
    if (rules.msn === 'required') details.push({ name: 'Merchant-Serial-Number', reason: 'The header is required' });
  } else if (!MSN_PATTERN.test(msn)) {
    details.push({ name: 'Merchant-Serial-Number', reason: 'Must be 4 to 6 digits (^[0-9]{4,6}$)' });
  }
  const idempotencyKey = header(request, 'Idempotency-Key');
  if (rules.idempotencyKey === 'required') {
    if (idempotencyKey === undefined) details.push({ name: 'Idempotency-Key', reason: 'The header is required' });
    else if (idempotencyKey.length > 50) details.push({ name: 'Idempotency-Key', reason: 'Must be at most 50 characters' });
  }
  for (const prefix of ['Svc-', 'Vipps-']) {
    for (const suffix of SYSTEM_HEADERS) {
      const value = header(request, prefix + suffix);
      if (value !== undefined && value.length > rules.systemHeaderMaxLength) {
        details.push({ name: prefix + suffix, reason: `Must be at most ${rules.systemHeaderMaxLength} characters` });
      }
    }
  }
  if (details.length > 0) throw AppError.validation(details);
  return { msn, idempotencyKey: rules.idempotencyKey === 'required' ? idempotencyKey : undefined };
}
