import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { PaymentState } from './payment.transitions.js';
import type { Shipping, ShippingDetails } from './express-shipping.js';

export type Currency = 'NOK' | 'DKK' | 'EUR';
export type UserFlow = 'PUSH_MESSAGE' | 'NATIVE_REDIRECT' | 'WEB_REDIRECT' | 'QR';
export type PaymentMethodType = 'WALLET' | 'CARD';
export type CustomerInteraction = 'CUSTOMER_PRESENT' | 'CUSTOMER_NOT_PRESENT';
export type QrImageFormat = 'TEXT/TARGETURL' | 'IMAGE/SVG+XML' | 'IMAGE/PNG';

/**
 * One payment of one sales unit. Amounts are minor units; the database enforces
 * `captured + cancelled <= authorized` and `refunded <= captured` with CHECK constraints.
 */
export const Payment = defineEntity({
  name: 'Payment',
  tableName: 'payment',
  properties: {
    id: p.uuid().primary(),
    msn: p.string(),
    reference: p.string(),
    pspReference: p.string(),
    state: p.string().$type<PaymentState>(),
    currency: p.string().$type<Currency>(),
    amount: p.bigint('number'),
    authorizedAmount: p.bigint('number'),
    capturedAmount: p.bigint('number'),
    cancelledAmount: p.bigint('number'),
    refundedAmount: p.bigint('number'),
    paymentMethodType: p.string().$type<PaymentMethodType>(),
    cardBin: p.string().nullable(),
    userFlow: p.string().$type<UserFlow>(),
    customerInteraction: p.string().$type<CustomerInteraction>(),
    customerPhoneNumber: p.string().nullable(),
    customerPersonalQr: p.string().nullable(),
    customerToken: p.string().nullable(),
    returnUrl: p.string().nullable(),
    receiptUrl: p.string().nullable(),
    paymentDescription: p.string().nullable(),
    receipt: p.json<Record<string, unknown>>().nullable(),
    industryData: p.json<Record<string, unknown>>().nullable(),
    metadata: p.json<Record<string, string>>().nullable(),
    profileScope: p.string().nullable(),
    profileSub: p.uuid().nullable(),
    /** Express (FACTS §14.1): the shipping the create offered, as given; null for a payment that is not Express. */
    shipping: p.json<Shipping>().nullable(),
    /** Express: the address and option the user chose, recorded at approval. */
    shippingDetails: p.json<ShippingDetails>().nullable(),
    /** When the prune removed the payment's personal data (shippingDetails, the profile link) after its retention. */
    personalDataRemovedAt: p.datetime().nullable(),
    /** The youngest user who may approve (FACTS §14.4), in whole years on the sales unit's clock. */
    minimumUserAge: p.integer().nullable(),
    qrFormat: p.string().$type<QrImageFormat>().nullable(),
    qrSize: p.integer().nullable(),
    /** The token the wallet user's landing page and force approve present; the `token` of `redirectUrl`. */
    approvalToken: p.string(),
    expiresAt: p.datetime(),
    authorizedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Payment = InferEntity<typeof Payment>;
