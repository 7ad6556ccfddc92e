import { defineErrors, type CatalogueEntry } from './catalogue.js';

/** Failures that belong to no domain: request shape, credentials, routing, idempotency and the unexpected. */
export const platformErrors = defineErrors('platform', {
  VALIDATION_FAILED: { status: 400, title: 'Bad Request' },
  MALFORMED_JSON: { status: 400, title: 'Bad Request' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  INVALID_CLIENT_CREDENTIALS: { status: 401, title: 'Unauthorized' },
  FORBIDDEN_SALES_UNIT: { status: 403, title: 'Forbidden' },
  /** Credentials of a kind of principal the interface does not serve (a PSP on ePayment), or another PSP's `Psp-Id`. */
  FORBIDDEN_PRINCIPAL: { status: 403, title: 'Forbidden' },
  FORBIDDEN_IN_PRODUCTION: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not Found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method Not Allowed' },
  IDEMPOTENCY_CONFLICT: { status: 409, title: 'Idempotency error: Idempotency-Key already exists', vippsCode: '4020' },
  IDEMPOTENCY_IN_FLIGHT: { status: 409, title: 'Order processing: concurrent request', vippsCode: '6160' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload Too Large' },
  /** A rate limit of the one limiter (src/platform/rate-limit/): the answer carries `Retry-After` and the RateLimit fields. */
  RATE_LIMITED: { status: 429, title: 'Too Many Requests' },
  INTERNAL: { status: 500, title: 'Internal Server Error' },
  /** The database could not be reached or dropped the connection mid-request: nothing of the request was committed. */
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service Unavailable' },
});

declare module './catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof platformErrors, CatalogueEntry> {}
}
