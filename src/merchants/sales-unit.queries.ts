import type { RequestContext } from '../platform/context.js';

/**
 * The sales units the caller may act for (the Merchant-Serial-Number values it may send), by its coverage
 * (coverage.ts): all of them, whichever one the request acts for.
 */
export async function listCallerSalesUnits(ctx: RequestContext): Promise<{ msn: string; name: string }[]> {
  const covered = ctx.covered('su.msn', { wholePrincipal: true });
  return ctx.em.execute<{ msn: string; name: string }[]>(`select su.msn, su.name from sales_unit su where ${covered.sql} order by su.msn`, [
    ...covered.params,
  ]);
}
