import type { RequestContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { PartnerSalesUnit } from '../merchants/partner.entity.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import './management.errors.js';

/**
 * Who sees what on the management interface, in one place: a merchant sees only itself and its own sales units; a
 * partner sees the sales units connected to it, and the merchant's own data (merchant details, contracts) only
 * with that merchant's active consent. A unit or merchant the caller cannot see is 404, like a missing one; a
 * merchant the partner is connected to but has no consent from is 403 (the partner knows the connection exists).
 * A partner that names the MSN it acts for (`Merchant-Serial-Number`) sees that merchant only, so acting for one
 * merchant it cannot reach another's units through the path.
 */
export interface UnitAccess {
  msn: string;
  merchantId: string;
  /** Whether the caller may read the merchant's own data. */
  merchantData: boolean;
}

/** Every sales unit the caller may see, with whether it may read its merchant's data. */
export async function visibleUnits(ctx: RequestContext, where: { merchantId?: string } = {}): Promise<UnitAccess[]> {
  const principal = ctx.principal;
  if (principal.kind === 'merchant') {
    if (where.merchantId !== undefined && where.merchantId !== principal.merchantId) return [];
    const units = await ctx.em.find(
      SalesUnit,
      { merchantId: principal.merchantId },
      { orderBy: { msn: 'asc' }, fields: ['msn', 'merchantId'] },
    );
    return units.map((u) => ({ msn: u.msn, merchantId: u.merchantId, merchantData: true }));
  }
  if (principal.kind !== 'partner') return [];
  // A partner naming the MSN it acts for sees that merchant's units only (spec 3: "using the merchant's MSN").
  const actingFor = ctx.scope.msn !== '';
  const rows = await ctx.em.execute<{ msn: string; merchant_id: string; merchant_consent: boolean }[]>(
    `select su.msn, su.merchant_id, psu.merchant_consent from partner_sales_unit psu join sales_unit su on su.msn = psu.msn
     where psu.partner_id = ? ${where.merchantId ? 'and su.merchant_id = ?' : ''}
       ${actingFor ? 'and su.merchant_id = (select merchant_id from sales_unit where msn = ?)' : ''} order by su.msn`,
    [principal.partnerId, ...(where.merchantId ? [where.merchantId] : []), ...(actingFor ? [ctx.scope.msn] : [])],
  );
  return rows.map((r) => ({ msn: r.msn, merchantId: r.merchant_id, merchantData: r.merchant_consent }));
}

/** The sales unit, if the caller may see it; otherwise 404. */
export async function requireVisibleUnit(ctx: RequestContext, msn: string): Promise<SalesUnit> {
  const unit = await ctx.em.findOne(SalesUnit, { msn });
  const principal = ctx.principal;
  let visible = false;
  if (unit && principal.kind === 'merchant') visible = unit.merchantId === principal.merchantId;
  if (unit && principal.kind === 'partner') {
    visible = (await ctx.em.count(PartnerSalesUnit, { partnerId: principal.partnerId, msn })) > 0;
    // Acting for a merchant (the MSN it names), the partner sees that merchant's units only.
    if (visible && ctx.scope.msn !== '' && ctx.scope.msn !== msn) {
      visible = (await ctx.em.findOne(SalesUnit, { msn: ctx.scope.msn }))?.merchantId === unit.merchantId;
    }
  }
  if (!unit || !visible) throw salesUnitNotFound(msn);
  return unit;
}

/**
 * The merchant with the organisation number, for reading its own data: the merchant itself, or a partner with a
 * connected unit of it and the merchant's consent. `forUnits`: only its (visible) units are read, no consent needed.
 */
export async function requireMerchant(
  ctx: RequestContext,
  orgno: string,
  purpose: 'merchantData' | 'units',
): Promise<{ merchant: Merchant; units: UnitAccess[] }> {
  const merchant = await ctx.em.findOne(Merchant, { orgNumber: orgno });
  const units = merchant ? await visibleUnits(ctx, { merchantId: merchant.id }) : [];
  if (!merchant || units.length === 0) {
    // A merchant without sales units is still itself.
    if (merchant && ctx.principal.kind === 'merchant' && ctx.principal.merchantId === merchant.id) return { merchant, units };
    throw new AppError('MERCHANT_NOT_FOUND', `No merchant ${orgno} for the caller`, [
      { name: 'orgno', reason: 'Not a merchant of the caller' },
    ]);
  }
  if (purpose === 'merchantData' && !units.some((u) => u.merchantData)) {
    throw new AppError('MERCHANT_CONSENT_MISSING', `Merchant ${orgno} has not consented to share its data with the partner`, [
      { name: 'orgno', reason: 'The merchant has not given (or has withdrawn) its consent' },
    ]);
  }
  return { merchant, units };
}

export function requirePartner(ctx: RequestContext): { partnerId: string } {
  if (ctx.principal.kind !== 'partner') {
    throw new AppError('PARTNER_ONLY', 'Only a partner may use this operation', [{ name: 'Authorization', reason: 'Not a partner' }]);
  }
  return { partnerId: ctx.principal.partnerId };
}

export function salesUnitNotFound(msn: string): AppError {
  return new AppError('SALES_UNIT_NOT_FOUND', `No sales unit ${msn} for the caller`, [
    { name: 'msn', reason: 'Not a sales unit of the caller' },
  ]);
}
