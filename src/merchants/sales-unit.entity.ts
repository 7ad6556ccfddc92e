import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A sales unit of a merchant, identified by its merchant serial number (MSN). */
export const SalesUnit = defineEntity({
  name: 'SalesUnit',
  tableName: 'sales_unit',
  properties: {
    msn: p.string().primary(),
    merchantId: p.uuid(),
    name: p.string(),
    /** Long-living payments (`expiresAt`) need the sales unit to be approved for them (FACTS §1.2). */
    longLivingPaymentsAllowed: p.boolean(),
    createdAt: p.datetime(),
  },
});
export type SalesUnit = InferEntity<typeof SalesUnit>;
