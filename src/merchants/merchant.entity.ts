import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Merchant = defineEntity({
  name: 'Merchant',
  tableName: 'merchant',
  properties: {
    id: p.uuid().primary(),
    name: p.string(),
    orgNumber: p.string(),
    status: p.string().$type<'ACTIVE' | 'DEACTIVATED'>().default('ACTIVE'),
    createdAt: p.datetime(),
    /** A PSP's signup made it: PSPs onboard their merchants apart, so its organisation number may repeat. */
    signedUpByPsp: p.boolean().default(false),
    /** A merchant made before the organisation number was unique, beside this older one of the same number. */
    duplicateOf: p.uuid().nullable(),
  },
});
export type Merchant = InferEntity<typeof Merchant>;
