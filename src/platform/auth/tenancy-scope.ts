import { AppError } from '../errors/app-error.js';

/**
 * What a request may see and touch, settled once by the request front: one sales unit the principal covers, or the
 * principal as a whole (a partner's or PSP's own operations, the graph without an MSN). Every tenant-owned read and
 * write goes through `scoped(ctx)` (tenancy.ts), which takes only a request acting for one sales unit, so reading a
 * sales unit where the request names none does not compile. Each face narrows once, before its handler or resolver
 * runs: REST by the route's declared scope (request-context.ts), the graph by `@salesUnit` in its admission
 * (graph/sales-unit-fields.ts), `node(id:)` by the finder its type registered (graph/node-registry.ts).
 */
export type TenancyScope = SalesUnitScope | PrincipalScope;

/** A request acting for one sales unit, checked to be one the principal covers. */
export interface SalesUnitScope {
  readonly kind: 'salesUnit';
  readonly msn: string;
  /**
   * Whether the caller may read the merchant's own data (merchant details, contracts): the merchant itself, or
   * a partner the merchant consented to share it with. Acting for the sales unit does not need it.
   */
  readonly readsMerchantData: boolean;
}

/** A request acting as the principal as a whole: it names no sales unit. */
export interface PrincipalScope {
  readonly kind: 'principal';
}

export function salesUnitScope(msn: string, readsMerchantData: boolean): SalesUnitScope {
  return { kind: 'salesUnit', msn, readsMerchantData };
}

const PRINCIPAL_SCOPE: PrincipalScope = Object.freeze({ kind: 'principal' });

export function principalScope(): PrincipalScope {
  return PRINCIPAL_SCOPE;
}

/** The sales unit the request names, or undefined when it acts as the principal as a whole. */
export function actingFor(scope: TenancyScope): string | undefined {
  return scope.kind === 'salesUnit' ? scope.msn : undefined;
}

/**
 * The one refusal of a request that names no sales unit where its operation (a route, a graph field) needs one: 400
 * naming `Merchant-Serial-Number`, so the header is asked for exactly where it is needed.
 */
export function salesUnitRequired(): AppError {
  return AppError.validation([{ name: 'Merchant-Serial-Number', reason: 'The header is required' }]);
}
