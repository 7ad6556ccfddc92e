import { assertActsFor, authenticate, credentialsFromRequest } from '../auth/authenticate.js';
import type { RequestContext, Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { LoaderRegistry } from '../graph/loader-registry.js';
import { readHeaders, type HeaderRules, type RequestHeaders } from './headers.js';
import type { HttpRequest } from './http-types.js';

/**
 * The common front of every merchant REST operation: header formats (400), credentials (401), then the sales
 * unit (403), in that order, so a malformed header is never reported as a credential problem.
 */
export async function merchantRequest(
  services: Services,
  request: HttpRequest,
  rules: HeaderRules,
): Promise<{ ctx: RequestContext; headers: RequestHeaders }> {
  const headers = readHeaders(request, rules);
  const principal = authenticate(services, credentialsFromRequest(request));
  const em = forkEm(services.orm);
  const msn = headers.msn!;
  await assertActsFor(services, em, principal, msn);
  const ctx: RequestContext = {
    principal,
    msn,
    em,
    clock: services.clock,
    config: services.config,
    traceId: request.traceId,
    loaders: new LoaderRegistry(em),
  };
  return { ctx, headers };
}
