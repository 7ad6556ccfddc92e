import type { RequestContext, SalesUnitContext, Services } from '../context.js';
import type { Em } from '../db/orm.js';
import type { NodeFinder } from '../graph/node-registry.js';
import { AppError } from '../errors/app-error.js';
import type { Principal } from './principal.js';
import { salesUnitRequired, salesUnitScope, type SalesUnitScope } from './tenancy-scope.js';

export type { PrincipalScope, SalesUnitScope, TenancyScope } from './tenancy-scope.js';

/**
 * The filter of every tenant-owned query: rows of the sales unit the request acts for, nothing else. It takes only
 * a request narrowed to one sales unit (by its route, its graph field's `@salesUnit`, or its node's finder).
 */
export function scoped(ctx: { scope: SalesUnitScope }): { msn: string } {
  return { msn: ctx.scope.msn };
}

/** Whether the request acts for one sales unit: the type guard every narrowing uses. */
export function actsForSalesUnit(ctx: RequestContext): ctx is SalesUnitContext {
  return ctx.scope.kind === 'salesUnit';
}

/**
 * The request narrowed to its sales unit, or the 400 naming `Merchant-Serial-Number`. Called by a face where the
 * need is known before its handler runs (a route's front, a node's finder), never inside a domain service.
 */
export function salesUnitContextOf(ctx: RequestContext): SalesUnitContext {
  if (!actsForSalesUnit(ctx)) throw salesUnitRequired();
  return ctx;
}

/**
 * The finder of a node type whose objects belong to one sales unit. `node(id:)` learns the type from the id only, so
 * this is where the graph narrows for it: a request naming no sales unit is answered with the 400 naming
 * `Merchant-Serial-Number`, as a field declared `@salesUnit` is by the admission.
 */
export function salesUnitNode(find: NodeFinder<SalesUnitContext>): NodeFinder<RequestContext> {
  return (ctx, key) => find(salesUnitContextOf(ctx), key);
}

/**
 * The scope of a request acting for the MSN, if the principal covers it (coverage.ts): otherwise 403, whatever the
 * reason, so the answer tells nothing about whose the sales unit is.
 */
export async function scopeFor(services: Services, em: Em, principal: Principal, msn: string): Promise<SalesUnitScope> {
  const coverage = await services.salesUnits.coverageOf(em, principal, msn);
  if (!coverage) {
    throw new AppError('FORBIDDEN_SALES_UNIT', `The caller may not act for Merchant-Serial-Number ${msn}`, [
      { name: 'Merchant-Serial-Number', reason: 'Not a sales unit of the caller' },
    ]);
  }
  return salesUnitScope(msn, coverage.readsMerchantData);
}
