import type { RequestContext, Services } from '../context.js';
import { forkEm, type Em } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import { LoaderRegistry } from '../graph/loader-registry.js';
import { authenticateBearer, authenticateCheckoutClient } from './authenticate.js';
import type { HeaderLookup } from './header-lookup.js';
import { readHeaders, type HeaderRules, type RequestHeaders } from './header-rules.js';
import type { Principal, PrincipalKind } from './principal.js';
import { scopeFor } from './tenancy.js';

/** How an interface's callers prove who they are, and which kinds of principal it serves. */
export interface AuthRule {
  /** `bearer`: an access token and its subscription key; `clientCredentials`: client_id/client_secret every time. */
  method: 'bearer' | 'clientCredentials';
  accepts: readonly PrincipalKind[];
}

/** The rules of the interface (or graph face) a request arrives on. */
export interface InterfaceRules {
  traceId: string;
  auth: AuthRule;
  headers: HeaderRules;
  /** The route requires an `Idempotency-Key`. */
  idempotent?: boolean;
}

/**
 * The one way a request context is made, for REST, GraphQL over HTTP and graphql-ws alike: header formats (400),
 * credentials (401), the kind of principal (403), then the sales unit (403), in that order, so a malformed header
 * is never reported as a credential problem.
 */
export async function createRequestContext(
  services: Services,
  lookupHeader: HeaderLookup,
  rules: InterfaceRules,
): Promise<{ ctx: RequestContext; headers: RequestHeaders }> {
  const headers = readHeaders(lookupHeader, rules.headers, rules.idempotent ?? false);
  const em = forkEm(services.orm);
  const principal =
    rules.auth.method === 'bearer' ? authenticateBearer(services, lookupHeader) : await authenticateCheckoutClient(em, lookupHeader);
  assertServed(principal, rules.auth, headers);
  const scope = await scopeFor(services, em, principal, requiredMsn(headers));
  return { ctx: contextFor(services, em, principal, scope, rules.traceId), headers };
}

/** A fresh context for a principal whose scope was settled before (a subscription's events, one context each). */
export function contextFor(
  services: Services,
  em: Em,
  principal: Principal,
  scope: RequestContext['scope'],
  traceId: string,
): RequestContext {
  return {
    principal,
    scope,
    em,
    clock: services.testClocks.of(scope.msn),
    config: services.config,
    traceId,
    loaders: new LoaderRegistry(em),
  };
}

function assertServed(principal: Principal, auth: AuthRule, headers: RequestHeaders): void {
  if (!auth.accepts.includes(principal.kind)) {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'These credentials may not use this interface', [
      { name: 'Authorization', reason: `Not accepted here: credentials of a ${principal.kind}` },
    ]);
  }
  if (principal.kind === 'psp' && headers.pspId !== undefined && headers.pspId.toLowerCase() !== principal.pspId.toLowerCase()) {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'The Psp-Id is not the PSP the credentials belong to', [
      { name: 'Psp-Id', reason: 'Not the PSP of the access token' },
    ]);
  }
}

/** Every interface that builds a context acts for a sales unit; where the header is optional, the request must still name one. */
function requiredMsn(headers: RequestHeaders): string {
  if (headers.msn === undefined) throw AppError.validation([{ name: 'Merchant-Serial-Number', reason: 'The header is required' }]);
  return headers.msn;
}
