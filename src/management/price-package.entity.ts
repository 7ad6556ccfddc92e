import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A price package a partner may name in a product order (FACTS §9); `productType` ePayment | ePaymentCustomerPresent. */
export const PricePackage = defineEntity({
  name: 'PricePackage',
  tableName: 'price_package',
  properties: {
    id: p.uuid().primary(),
    name: p.string(),
    description: p.string(),
    visibleInSignupForm: p.boolean(),
    productType: p.string().$type<'ePayment' | 'ePaymentCustomerPresent'>(),
  },
});
export type PricePackage = InferEntity<typeof PricePackage>;

/** The price package's product type for each order product type it applies to (FACTS §9: only these two). */
export const PRICE_PACKAGE_PRODUCT_TYPES: Readonly<Record<string, 'ePayment' | 'ePaymentCustomerPresent'>> = {
  SVC_PA_NETT: 'ePayment',
  SVC_I_KASSA: 'ePaymentCustomerPresent',
};
