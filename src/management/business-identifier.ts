import type { RequestContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { requireMerchant } from './management-access.js';

/**
 * Management 1.1.x names a merchant by its business identifier, `{scheme}/{id}`, beside 1.0.0's `{orgno}`
 * (`management-v1-1.1.6.yaml`). The platform's merchants are Norwegian companies: `business:NO:ORG` with the
 * organisation number is the scheme that names one; any other scheme names no merchant of the caller (404).
 */
export const NORWEGIAN_ORGANISATION = 'business:NO:ORG';

export interface BusinessIdentifier {
  scheme: string;
  id: string;
}

/** The 1.1.x `Merchant`: the business identifier, name, status and country. */
export interface MerchantByIdentifier {
  businessIdentifier: BusinessIdentifier;
  name: string;
  status: string;
  createdAt: string;
  countryCode: string;
}

/** The organisation number a business identifier names; 404 for another scheme, 400 for a malformed number. */
export function orgnoOf(identifier: BusinessIdentifier): string {
  if (identifier.scheme !== NORWEGIAN_ORGANISATION) {
    throw new AppError('MERCHANT_NOT_FOUND', `No merchant ${identifier.scheme}/${identifier.id} for the caller`, [
      { name: 'scheme', reason: `Merchants here are named by ${NORWEGIAN_ORGANISATION}` },
    ]);
  }
  if (!/^[0-9]{9}$/.test(identifier.id)) throw AppError.validation([{ name: 'id', reason: 'Must be a 9-digit organisation number' }]);
  return identifier.id;
}

/** `GET /merchants/{scheme}/{id}`: as `GET /merchants/{orgno}` (a partner needs the merchant's consent), in 1.1.x's shape. */
export async function merchantByIdentifier(ctx: RequestContext, identifier: BusinessIdentifier): Promise<MerchantByIdentifier> {
  const { merchant } = await requireMerchant(ctx, orgnoOf(identifier), 'merchantData');
  return {
    businessIdentifier: { scheme: NORWEGIAN_ORGANISATION, id: merchant.orgNumber },
    name: merchant.name,
    status: merchant.status,
    createdAt: merchant.createdAt.toISOString(),
    countryCode: 'NO',
  };
}

/** `GET /merchants/{scheme}/{id}/sales-units`: the units the caller sees (a partner: those connected to it), `{msn, name}`. */
export async function salesUnitsByIdentifier(
  ctx: RequestContext,
  identifier: BusinessIdentifier,
): Promise<{ msn: string; name: string }[]> {
  const { units } = await requireMerchant(ctx, orgnoOf(identifier), 'units');
  if (units.length === 0) return [];
  const rows = await ctx.em.find(
    SalesUnit,
    { msn: { $in: units.map((u) => u.msn) } },
    { orderBy: { msn: 'asc' }, fields: ['msn', 'name'] },
  );
  return rows.map((u) => ({ msn: u.msn, name: u.name }));
}
