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
  },
});
export type Merchant = InferEntity<typeof Merchant>;
