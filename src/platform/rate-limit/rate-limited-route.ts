import type { HttpRequest } from '../rest/http-types.js';

/**
 * A route a domain holds to a published per-resource limit beyond the per-client one: `modification` per
 * reference and sales unit, `read` per reference and subscription key (the ePayment limits, FACTS §1.9).
 */
export interface RateLimitedRoute {
  method: string;
  /** The route's full path template, as the router reports it (`/epayment/v1/payments/{reference}/capture`). */
  pattern: string;
  policy: 'modification' | 'read';
  /** The resource the request names (its path parameter or a field of its body); none: not limited by it. */
  reference(request: HttpRequest): string | undefined;
}
