import type { RequestContext } from '../platform/context.js';
import { SalesUnit } from './sales-unit.entity.js';

/** The sales units the caller's merchant owns: the Merchant-Serial-Number values it may act for. */
export async function listCallerSalesUnits(ctx: RequestContext): Promise<{ msn: string; name: string }[]> {
  const units = await ctx.em.find(SalesUnit, { merchantId: ctx.principal.merchantId }, { orderBy: { msn: 'asc' } });
  return units.map((unit) => ({ msn: unit.msn, name: unit.name }));
}
