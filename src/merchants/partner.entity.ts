import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type PartnerStatus = 'PENDING' | 'ACTIVE' | 'DEACTIVATED';

/** A partner (integrator) that acts for the sales units connected to it, naming the MSN per request. */
export const Partner = defineEntity({
  name: 'Partner',
  tableName: 'partner',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    status: p.string().$type<PartnerStatus>(),
    /** `Vipps Partner`, `Vipps Partner Plus` or `Vipps Partner Premium` (FACTS §9). */
    level: p.string().default('Vipps Partner'),
    contactName: p.string().nullable(),
    contactEmail: p.string().nullable(),
    createdAt: p.datetime(),
  },
});
export type Partner = InferEntity<typeof Partner>;

/**
 * A sales unit connected to a partner. `merchantConsent`: the merchant agreed to share its own data (merchant
 * details, contracts) with the partner; acting for the sales unit needs only the connection.
 */
export const PartnerSalesUnit = defineEntity({
  name: 'PartnerSalesUnit',
  tableName: 'partner_sales_unit',
  properties: {
    partnerId: p.string().primary(),
    msn: p.string().primary(),
    merchantConsent: p.boolean(),
    createdAt: p.datetime(),
  },
});
export type PartnerSalesUnit = InferEntity<typeof PartnerSalesUnit>;
