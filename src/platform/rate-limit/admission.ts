import { verifyJwt } from '../auth/jwt.js';
import { digest } from '../auth/digest.js';
import type { Services } from '../context.js';
import type { HttpRequest, HttpResponse } from '../rest/http-types.js';
import { clientAddress } from './client-address.js';
import { rateLimitFields, type RateLimitState } from './rate-limit-fields.js';
import type { RateLimitedRoute } from './rate-limited-route.js';
import { RateLimitRefusal } from './rate-limit-refusal.js';

export type Admission = { allowed: true; state: RateLimitState } | { allowed: false; state: RateLimitState };

/**
 * Who a request is charged to: the client of a valid access token (a signature check, no statement), else the
 * address it came from. A wallet user's token names no API client and is charged by address.
 */
export function callerOf(services: Services, request: HttpRequest): { policy: 'client' | 'address'; key: string } {
  const authorization = headerOf(request, 'authorization');
  if (authorization?.startsWith('Bearer ')) {
    const now = Math.floor(services.clock.now().getTime() / 1000);
    const verdict = verifyJwt(authorization.slice(7).trim(), services.config.tokenSecret, now);
    if (verdict.ok && typeof verdict.claims.skd === 'string' && typeof verdict.claims.sub === 'string') {
      return { policy: 'client', key: verdict.claims.sub };
    }
  }
  return { policy: 'address', key: callerAddress(services, request) };
}

/** The address a request came from, behind the trusted proxies only (`clientAddress`). */
export function callerAddress(services: Services, request: HttpRequest): string {
  return clientAddress(request.remoteAddress, request.headers['x-forwarded-for'], services.config.rateLimits.trustedProxies);
}

/**
 * The caller's quota (one point) of a routed REST request (or page), before it runs. The quotas that name another
 * principal's resources are charged later, once the request's credentials and scope were accepted
 * (`chargeAuthenticated`).
 */
export async function admitRestRequest(services: Services, request: HttpRequest): Promise<Admission> {
  const caller = callerOf(services, request);
  if (caller.policy === 'client') request.authenticated = true;
  const charged = await services.rateLimiter.charge(caller.policy, caller.key);
  return { allowed: charged.allowed, state: charged.state };
}

/**
 * The published per-reference limit of a route, charged only for a request whose credentials were accepted for the
 * sales unit it names: the reference and MSN are the caller's to choose, so charged any earlier, anyone could spend
 * (and keep spent) a merchant's quota for its own payment without credentials (issue 33, N2).
 */
export async function chargeAuthenticated(services: Services, request: HttpRequest, limitedRoute: RateLimitedRoute): Promise<void> {
  const reference = limitedRoute.reference(request);
  if (reference === undefined) return;
  const key =
    limitedRoute.policy === 'modification'
      ? `${reference}\n${headerOf(request, 'merchant-serial-number') ?? ''}`
      : `${reference}\n${digest(headerOf(request, 'ocp-apim-subscription-key') ?? '')}`;
  const charged = await services.rateLimiter.charge(limitedRoute.policy === 'modification' ? 'modifications' : 'reads', key);
  if (!charged.allowed) throw new RateLimitRefusal(charged.state);
}

/** The response with the RateLimit fields of the quota it was charged to. */
export function withRateLimitFields(response: HttpResponse, state: RateLimitState): HttpResponse {
  return { ...response, headers: { ...rateLimitFields(state), ...response.headers } };
}

function headerOf(request: HttpRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}
