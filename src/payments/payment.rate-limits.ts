import type { RateLimitedRoute } from '../platform/rate-limit/rate-limited-route.js';
import type { HttpRequest } from '../platform/rest/http-types.js';

const PREFIX = '/epayment/v1';

/** The reference a create request names in its body (read again here; a body that is no JSON object names none). */
function referenceInBody(request: HttpRequest): string | undefined {
  try {
    const body = JSON.parse(request.rawBody.toString('utf8')) as { reference?: unknown };
    return typeof body?.reference === 'string' ? body.reference : undefined;
  } catch {
    return undefined;
  }
}

const referenceInPath = (request: HttpRequest) => request.params.reference;

/**
 * The platform's published ePayment limits (FACTS §1.9): create, capture, cancel and refund 5 a minute per
 * reference and MSN; get payment and get events 120 a minute per reference and subscription key. The figures are
 * configuration (`rateLimits.modifications`, `rateLimits.reads`): these are the routes they hold.
 */
export const paymentRateLimits: readonly RateLimitedRoute[] = [
  { method: 'POST', pattern: `${PREFIX}/payments`, policy: 'modification', reference: referenceInBody },
  ...['capture', 'refund', 'cancel'].map((verb): RateLimitedRoute => ({
    method: 'POST',
    pattern: `${PREFIX}/payments/{reference}/${verb}`,
    policy: 'modification',
    reference: referenceInPath,
  })),
  { method: 'GET', pattern: `${PREFIX}/payments/{reference}`, policy: 'read', reference: referenceInPath },
  { method: 'GET', pattern: `${PREFIX}/payments/{reference}/events`, policy: 'read', reference: referenceInPath },
];
