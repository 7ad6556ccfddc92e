import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type SignupStatus = 'PENDING' | 'ACTIVE' | 'DEACTIVATED';

export interface SignupAddress {
  addressLine1: string;
  addressLine2?: string;
  city: string;
  postCode: string;
  country: string;
}

/** A merchant a PSP signed up, keyed by the MSN of the sales unit it got. */
export const SignupMerchant = defineEntity({
  name: 'SignupMerchant',
  tableName: 'psp_signup_merchant',
  properties: {
    msn: p.string().primary(),
    pspId: p.uuid(),
    merchantId: p.uuid(),
    organizationNumber: p.string(),
    companyName: p.string(),
    companyEmail: p.string(),
    name: p.string(),
    mccCode: p.string().nullable(),
    logo: p.text(),
    email: p.string().nullable(),
    website: p.string().nullable(),
    address: p.json<SignupAddress>(),
    status: p.string().$type<SignupStatus>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type SignupMerchant = InferEntity<typeof SignupMerchant>;
