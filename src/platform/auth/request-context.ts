import type { RequestContext, Services } from '../context.js';
import { forkEm, type Em } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import { LoaderRegistry } from '../graph/loader-registry.js';
import { authenticateBearer, authenticateCheckoutClient } from './authenticate.js';
import type { HeaderLookup } from './header-lookup.js';
import { MSN_FORMAT, MSN_PATTERN, readHeaders, UUID_PATTERN, type HeaderRules, type RequestHeaders } from './header-rules.js';
import type { Principal, PrincipalKind } from './principal.js';
import { scopeFor } from './tenancy.js';
import { actingFor, principalScope, salesUnitRequired, type TenancyScope } from './tenancy-scope.js';

/**
 * What a request acts for. `salesUnit`: one sales unit, named by `Merchant-Serial-Number` (required). `merchant`:
 * a merchant as a whole; a merchant's own token names it, a partner names it by one of its units' MSN (required
 * of a partner). `principal`: the principal as a whole (a partner's, a PSP's own operations); an MSN, when sent,
 * narrows to it.
 */
export type ScopeRule = 'salesUnit' | 'merchant' | 'principal';

/** How an interface's callers prove who they are, which kinds of principal it serves, and what they act for. */
export interface AuthRule {
  /** `bearer`: an access token and its subscription key; `clientCredentials`: client_id/client_secret every time. */
  method: 'bearer' | 'clientCredentials';
  accepts: readonly PrincipalKind[];
  /** `optional`: the token alone names the client (a key sent anyway must still match it). Default: required. */
  subscriptionKey?: 'required' | 'optional';
  /** Default `salesUnit`; a route may declare its own. */
  scope?: ScopeRule;
}

/** The rules of the interface (or graph face) a request arrives on. */
export interface InterfaceRules {
  traceId: string;
  auth: AuthRule;
  headers: HeaderRules;
  /** The route requires an `Idempotency-Key`. */
  idempotent?: boolean;
  /** The route's own scope, where it differs from the interface's. */
  scope?: ScopeRule;
  /** Where the request came from (`callerAddress`): client credentials are checked against their lockout by it. */
  callerAddress?: string;
}

/**
 * The one request front, for REST, GraphQL over HTTP and graphql-ws alike, in one order: credentials (401), the
 * kind of principal and its `Psp-Id` (403), the scope (the MSN: 400 when missing or malformed where one is
 * needed, 403 when not covered), then the headers' formats (400). So a request without valid credentials is a 401
 * whatever else is wrong with it, and a malformed header of an authenticated caller is a 400.
 */
export async function createRequestContext(
  services: Services,
  lookupHeader: HeaderLookup,
  rules: InterfaceRules,
): Promise<{ ctx: RequestContext; headers: RequestHeaders }> {
  const em = forkEm(services.orm);
  const principal =
    rules.auth.method === 'bearer'
      ? authenticateBearer(services, lookupHeader, { subscriptionKey: rules.auth.subscriptionKey ?? 'required' })
      : await authenticateCheckoutClient(services, em, lookupHeader, callerOfCredentials(rules));
  assertServed(principal, rules.auth, lookupHeader);
  const scope = await scopeOf(services, em, principal, rules.scope ?? rules.auth.scope ?? 'salesUnit', lookupHeader);
  const headers = readHeaders(lookupHeader, rules.headers, rules.idempotent ?? false);
  return { ctx: contextFor(services, em, principal, scope, rules.traceId), headers };
}

/** A fresh context for a principal whose scope was settled before (a subscription's events, one context each). */
export function contextFor<S extends TenancyScope>(
  services: Services,
  em: Em,
  principal: Principal,
  scope: S,
  traceId: string,
): RequestContext<S> {
  const unit = actingFor(scope);
  const covered = (msnColumn: string, options: { readsMerchantData?: boolean; wholePrincipal?: boolean } = {}) =>
    services.salesUnits.condition(principal, msnColumn, {
      readsMerchantData: options.readsMerchantData,
      actingFor: options.wholePrincipal ? undefined : unit,
    });
  return {
    principal,
    scope,
    em,
    clock: unit === undefined ? services.clock : services.testClocks.of(unit),
    config: services.config,
    traceId,
    loaders: new LoaderRegistry(em),
    covered,
  };
}

function callerOfCredentials(rules: InterfaceRules): string {
  // Client credentials are only taken over REST, whose front always says where the request came from.
  if (rules.callerAddress === undefined) throw new Error('client credentials checked without the caller’s address');
  return rules.callerAddress;
}

function assertServed(principal: Principal, auth: AuthRule, lookup: HeaderLookup): void {
  if (!auth.accepts.includes(principal.kind)) {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'These credentials may not use this interface', [
      { name: 'Authorization', reason: `Not accepted here: credentials of a ${principal.kind}` },
    ]);
  }
  // A PSP naming another PSP is refused here; a missing or malformed Psp-Id is the header rules' 400.
  const pspId = lookup('Psp-Id');
  if (
    principal.kind === 'psp' &&
    pspId !== undefined &&
    UUID_PATTERN.test(pspId) &&
    pspId.toLowerCase() !== principal.pspId.toLowerCase()
  ) {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'The Psp-Id is not the PSP the credentials belong to', [
      { name: 'Psp-Id', reason: 'Not the PSP of the access token' },
    ]);
  }
}

async function scopeOf(services: Services, em: Em, principal: Principal, rule: ScopeRule, lookup: HeaderLookup): Promise<TenancyScope> {
  const msn = lookup('Merchant-Serial-Number');
  if (msn === undefined) {
    // The route acts for one sales unit: refused here, before its handler runs, which so gets a narrowed scope.
    if (rule === 'salesUnit') throw salesUnitRequired();
    if (rule === 'merchant' && principal.kind === 'partner') {
      throw AppError.validation([
        { name: 'Merchant-Serial-Number', reason: 'Required when a partner acts for a merchant (the merchant’s MSN)' },
      ]);
    }
    return principalScope();
  }
  if (!MSN_PATTERN.test(msn)) throw AppError.validation([{ name: 'Merchant-Serial-Number', reason: MSN_FORMAT }]);
  return scopeFor(services, em, principal, msn);
}
