import type { RequestContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import { Merchant } from '../merchants/merchant.entity.js';
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

/** Every sales unit the caller may see (its coverage: coverage.ts), with whether it may read its merchant's data. */
export async function visibleUnits(ctx: RequestContext, where: { merchantId?: string } = {}): Promise<UnitAccess[]> {
  const covered = ctx.covered('su.msn');
  const readable = ctx.covered('su.msn', { readsMerchantData: true });
  const rows = await ctx.em.execute<{ msn: string; merchant_id: string; merchant_data: boolean }[]>(
    `select su.msn, su.merchant_id, (${readable.sql}) as merchant_data from sales_unit su
     where ${covered.sql} ${where.merchantId ? 'and su.merchant_id = ?' : ''} order by su.msn`,
    [...readable.params, ...covered.params, ...(where.merchantId ? [where.merchantId] : [])],
  );
  return rows.map((r) => ({ msn: r.msn, merchantId: r.merchant_id, merchantData: Boolean(r.merchant_data) }));
}

/** The sales unit, if the caller may see it (the same coverage as the lists); otherwise 404. */
export async function requireVisibleUnit(ctx: RequestContext, msn: string): Promise<SalesUnit> {
  const covered = ctx.covered('su.msn');
  const [row] = await ctx.em.execute<{ msn: string }[]>(`select su.msn from sales_unit su where su.msn = ? and ${covered.sql}`, [
    msn,
    ...covered.params,
  ]);
  const unit = row ? await ctx.em.findOne(SalesUnit, { msn }) : null;
  if (!unit) throw salesUnitNotFound(msn);
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
