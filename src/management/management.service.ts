import { LockMode } from '@mikro-orm/core';
import type { RequestContext } from '../platform/context.js';
import { recordEvent } from '../platform/events/record-event.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { Partner } from '../merchants/partner.entity.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { requireMerchant, requirePartner, requireVisibleUnit, visibleUnits } from './management-access.js';
import { PricePackage } from './price-package.entity.js';
import { contractLink } from './contract-link.js';
import { refuseSalesUnitUpdate, type SalesUnitUpdate } from './sales-unit-update.rules.js';

export interface MerchantView {
  orgno: string;
  name: string;
  status: string;
}

export interface SalesUnitDetails {
  msn: string;
  name: string;
  businessIdentifier: { scheme: 'business:NO:ORG'; id: string };
  configuration: { paymentAllowed: boolean; captureType: string; skipLandingPageAllowed: boolean; recurringAllowed: boolean };
}

const merchantView = (m: Merchant): MerchantView => ({ orgno: m.orgNumber, name: m.name, status: m.status });

/**
 * The merchants whose own data the caller may read (a merchant: itself; a partner: those that consented), by the
 * coverage rule the single read (`getMerchant`) applies, so the list shows no merchant the read would refuse.
 */
export async function listMerchants(ctx: RequestContext): Promise<MerchantView[]> {
  const principal = ctx.principal;
  const readable = (await visibleUnits(ctx)).filter((u) => u.merchantData);
  const ids = principal.kind === 'merchant' ? [principal.merchantId] : [...new Set(readable.map((u) => u.merchantId))];
  const merchants = await ctx.em.find(Merchant, { id: { $in: ids } }, { orderBy: { orgNumber: 'asc' } });
  return merchants.map(merchantView);
}

export async function getMerchant(ctx: RequestContext, orgno: string): Promise<MerchantView> {
  return merchantView((await requireMerchant(ctx, orgno, 'merchantData')).merchant);
}

/** The merchant's contract, a PDF the service serves (one per merchant), as a link a browser opens (contract-link.ts). */
export async function merchantContracts(ctx: RequestContext, orgno: string): Promise<{ urls: string[] }> {
  const { merchant } = await requireMerchant(ctx, orgno, 'merchantData');
  return { urls: [contractLink(ctx, merchant.orgNumber)] };
}

export async function merchantSalesUnits(ctx: RequestContext, orgno: string): Promise<string[]> {
  return (await requireMerchant(ctx, orgno, 'units')).units.map((u) => u.msn);
}

export async function allSalesUnits(ctx: RequestContext): Promise<string[]> {
  return (await visibleUnits(ctx)).map((u) => u.msn);
}

export async function salesUnitDetails(ctx: RequestContext, msn: string): Promise<SalesUnitDetails> {
  const unit = await requireVisibleUnit(ctx, msn);
  const merchant = await ctx.em.findOneOrFail(Merchant, { id: unit.merchantId });
  return detailsOf(unit, merchant);
}

export function detailsOf(unit: SalesUnit, merchant: Pick<Merchant, 'orgNumber'>): SalesUnitDetails {
  return {
    msn: unit.msn,
    name: unit.name,
    businessIdentifier: { scheme: 'business:NO:ORG', id: merchant.orgNumber },
    configuration: {
      paymentAllowed: unit.status === 'ACTIVE',
      captureType: unit.captureType,
      skipLandingPageAllowed: unit.skipLandingPageAllowed,
      recurringAllowed: unit.recurringAllowed,
    },
  };
}

/**
 * Changes a sales unit's name, logo or status, with its event, in one transaction, once the update passed its rules
 * (sales-unit-update.rules.ts); the row is locked so two updates apply one after the other. Deactivating makes the
 * unit refuse new payments (sales-unit-status.ts).
 */
export async function updateSalesUnit(ctx: RequestContext, msn: string, update: SalesUnitUpdate): Promise<SalesUnitDetails> {
  refuseSalesUnitUpdate(update);
  await requireVisibleUnit(ctx, msn);
  return ctx.em.transactional(async (em) => {
    const unit = await em.findOneOrFail(SalesUnit, { msn }, { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['logo'] });
    const before = unit.status;
    if (update.name !== undefined) unit.name = update.name;
    if (update.salesUnitLogo !== undefined) unit.logo = update.salesUnitLogo;
    if (update.status !== undefined) unit.status = update.status;
    unit.version += 1;
    const now = ctx.clock.now();
    recordEvent(em, {
      streamType: 'sales-unit',
      streamId: msn,
      msn,
      name: 'management.sales-unit.updated.v1',
      payload: {
        msn,
        changed: Object.keys(update).filter((k) => update[k as keyof SalesUnitUpdate] !== undefined),
        status: unit.status,
        previousStatus: before,
        by: ctx.principal.kind,
      },
      occurredAt: now,
    });
    const merchant = await em.findOneOrFail(Merchant, { id: unit.merchantId });
    await em.flush();
    return detailsOf(unit, merchant);
  });
}

export async function whoami(ctx: RequestContext) {
  const { partnerId } = requirePartner(ctx);
  const partner = await ctx.em.findOneOrFail(Partner, { id: partnerId });
  return {
    partnerId: partner.id,
    name: partner.name,
    level: partner.level,
    partnerContactName: partner.contactName ?? undefined,
    partnerContactEmail: partner.contactEmail ?? undefined,
    status: partner.status,
  };
}

/** The price packages a partner may name, by id; with a page, `limit` of them after the id `after` (keyset). */
export async function pricePackages(ctx: RequestContext, page?: { limit: number; after: string | undefined }) {
  requirePartner(ctx);
  const rows = await ctx.em.find(PricePackage, page?.after !== undefined ? { id: { $gt: page.after } } : {}, {
    orderBy: { id: 'asc' },
    ...(page ? { limit: page.limit } : {}),
  });
  return rows.map(pricePackageView);
}

export const pricePackageView = (p: PricePackage) => ({
  pricePackageId: p.id,
  name: p.name,
  description: p.description,
  visibleInSignupForm: p.visibleInSignupForm,
  productType: p.productType,
});
