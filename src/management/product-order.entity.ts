import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const PRODUCT_TYPES = ['SVC_PA_NETT', 'SVC_LOGG_INN', 'SVC_CHECKOUT', 'SVC_I_KASSA'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];
export const PRODUCT_USE_CASES = ['Website', 'WebsiteWithTest', 'App', 'Unknown'] as const;
/** DELETED: undone by the partner before submission; reads as 404. */
export type PrefillStatus = 'RECEIVED' | 'ACCESSED' | 'PROCESSING' | 'WAITING_FOR_MERCHANT' | 'COMPLETED' | 'DELETED';

/** A product order pre-filled by a partner, which the merchant reviews and submits on the prefill page. */
export const ProductOrder = defineEntity({
  name: 'ProductOrder',
  tableName: 'product_order',
  properties: {
    id: p.uuid().primary(),
    partnerId: p.string(),
    orgNumber: p.string(),
    productType: p.string().$type<ProductType>(),
    productUseCase: p.string().nullable(),
    salesUnitName: p.string().nullable(),
    salesUnitLogo: p.text().nullable().lazy(),
    settlementAccountNumber: p.string().nullable(),
    pricePackageId: p.uuid().nullable(),
    annualTurnover: p.bigint('number').nullable(),
    intendedPurpose: p.text().nullable(),
    website: p.json<Record<string, unknown>>().nullable(),
    complianceData: p.json<Record<string, unknown>>().nullable(),
    status: p.string().$type<PrefillStatus>(),
    /** SVC_PA_NETT without website and complianceData: the merchant must enter them by hand. */
    needsManualEntry: p.boolean(),
    /** The secret part of the prefill page's URL. */
    pageToken: p.string(),
    /** The sales unit the submitted order created. */
    msn: p.string().nullable(),
    createdAt: p.datetime(),
    submittedAt: p.datetime().nullable(),
  },
});
export type ProductOrder = InferEntity<typeof ProductOrder>;
