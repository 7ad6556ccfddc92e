import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A payment service provider; its API client sends its id as `Psp-Id`. */
export const Psp = defineEntity({
  name: 'Psp',
  tableName: 'psp',
  properties: {
    id: p.uuid().primary(),
    name: p.string(),
    createdAt: p.datetime(),
  },
});
export type Psp = InferEntity<typeof Psp>;

/** A merchant signed up by a PSP: the PSP acts for its sales units. */
export const PspMerchant = defineEntity({
  name: 'PspMerchant',
  tableName: 'psp_merchant',
  properties: {
    pspId: p.uuid().primary(),
    merchantId: p.uuid().primary(),
    createdAt: p.datetime(),
  },
});
export type PspMerchant = InferEntity<typeof PspMerchant>;
