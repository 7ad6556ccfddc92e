import { verifyJwt } from '../auth/jwt.js';
import { digest } from '../auth/digest.js';
import type { Services } from '../context.js';
import type { HttpRequest, HttpResponse } from '../rest/http-types.js';
import { clientAddress } from './client-address.js';
import { rateLimitFields, type RateLimitState } from './rate-limit-fields.js';
import type { RateLimitedRoute } from './rate-limited-route.js';

/** The token endpoint, where refused client secrets are counted per client id. */
export const TOKEN_ENDPOINT = '/accesstoken/get';

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
  const address = clientAddress(request.remoteAddress, request.headers['x-forwarded-for'], services.config.rateLimits.trustedProxies);
  return { policy: 'address', key: address };
}

/**
 * The limits a routed REST request (or page) is held to before it runs: its caller's quota (one point), the
 * published per-reference limit of its route if a domain declared one, and at the token endpoint the refused
 * secrets of the client id it names. The first exhausted one refuses it.
 */
export async function admitRestRequest(
  services: Services,
  request: HttpRequest,
  limitedRoute: RateLimitedRoute | undefined,
): Promise<Admission> {
  const limiter = services.rateLimiter;
  const caller = callerOf(services, request);
  if (caller.policy === 'client') request.authenticated = true;
  const charged = await limiter.charge(caller.policy, caller.key);
  if (!charged.allowed) return { allowed: false, state: charged.state };
  const reference = limitedRoute?.reference(request);
  if (limitedRoute && reference !== undefined) {
    const key =
      limitedRoute.policy === 'modification'
        ? `${reference}\n${headerOf(request, 'merchant-serial-number') ?? ''}`
        : `${reference}\n${digest(headerOf(request, 'ocp-apim-subscription-key') ?? '')}`;
    const perReference = await limiter.charge(limitedRoute.policy === 'modification' ? 'modifications' : 'reads', key);
    if (!perReference.allowed) return { allowed: false, state: perReference.state };
  }
  const clientId = request.routePattern === TOKEN_ENDPOINT ? headerOf(request, 'client_id') : undefined;
  if (clientId !== undefined) {
    const blocked = await limiter.exhausted('secretFailures', clientId);
    if (blocked) return { allowed: false, state: blocked.state };
  }
  return { allowed: true, state: charged.state };
}

/** An answer of a request that ran: a refused secret at the token endpoint counts against its client id. */
export async function afterRestRequest(services: Services, request: HttpRequest, response: HttpResponse): Promise<void> {
  if (request.routePattern !== TOKEN_ENDPOINT || response.status !== 401) return;
  const clientId = headerOf(request, 'client_id');
  if (clientId !== undefined) await services.rateLimiter.penalise('secretFailures', clientId);
}

/** A graph request without a valid token is charged to its address; one with a token is charged its cost later. */
export async function admitGraphRequest(services: Services, request: HttpRequest): Promise<Admission | undefined> {
  const caller = callerOf(services, request);
  if (caller.policy === 'client') return undefined;
  const charged = await services.rateLimiter.charge(caller.policy, caller.key);
  return charged.allowed ? undefined : { allowed: false, state: charged.state };
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
