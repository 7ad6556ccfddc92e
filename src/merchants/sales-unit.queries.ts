import type { RequestContext } from '../platform/context.js';
import { PartnerSalesUnit } from './partner.entity.js';
import { PspMerchant } from './psp.entity.js';
import { SalesUnit } from './sales-unit.entity.js';

/**
 * The sales units the caller may act for (the Merchant-Serial-Number values it may send): a merchant's or checkout
 * client's own, a partner's connected ones, a PSP's merchants' ones.
 */
export async function listCallerSalesUnits(ctx: RequestContext): Promise<{ msn: string; name: string }[]> {
  const principal = ctx.principal;
  let merchantIds: string[] | undefined;
  let msns: string[] | undefined;
  switch (principal.kind) {
    case 'merchant':
    case 'checkoutClient':
      merchantIds = [principal.merchantId];
      break;
    case 'psp':
      merchantIds = (await ctx.em.find(PspMerchant, { pspId: principal.pspId })).map((row) => row.merchantId);
      break;
    case 'partner':
      msns = (await ctx.em.find(PartnerSalesUnit, { partnerId: principal.partnerId })).map((row) => row.msn);
      break;
  }
  const where = merchantIds ? { merchantId: { $in: merchantIds } } : { msn: { $in: msns ?? [] } };
  const units = await ctx.em.find(SalesUnit, where, { orderBy: { msn: 'asc' } });
  return units.map((unit) => ({ msn: unit.msn, name: unit.name }));
}
