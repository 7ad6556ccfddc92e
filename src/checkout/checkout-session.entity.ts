import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { Currency } from '../payments/payment.entity.js';
import type { CheckoutSessionRequest, OfferedShipping, SessionAddress, ShippingDetails, BillingDetails } from './checkout-session.types.js';
import type { CheckoutSessionState } from './checkout-session.transitions.js';

/**
 * One checkout session of one sales unit (FACTS §8): the merchant's request as validated, where the buyer is in
 * it, and, from `PaymentInitiated` on, the ePayment payment that pays it (created through the payments service
 * with the session's reference). Amounts are minor units.
 */
export const CheckoutSession = defineEntity({
  name: 'CheckoutSession',
  tableName: 'checkout_session',
  properties: {
    /** The public `sessionId`. */
    id: p.string().primary(),
    msn: p.string(),
    reference: p.string(),
    state: p.string().$type<CheckoutSessionState>(),
    currency: p.string().$type<Currency>(),
    amount: p.bigint('number'),
    paymentDescription: p.string(),
    /** The create request as checked: merchantInfo, logistics, prefillCustomer, configuration, orderSummary. */
    request: p.json<CheckoutSessionRequest>(),
    /** The token the buyer's page presents (the `token` of the create response and of `checkoutFrontendUrl`). */
    pageToken: p.string(),
    /** The API client that opened the session: the payment is created on its behalf. */
    clientId: p.string(),
    /** The address the buyer gave and the shipping options offered for it (dynamic or fixed). */
    buyerAddress: p.json<SessionAddress>().nullable(),
    offeredShipping: p.json<OfferedShipping>().nullable(),
    paymentId: p.uuid().nullable(),
    paymentMethod: p.string().nullable(),
    shippingDetails: p.json<ShippingDetails>().nullable(),
    billingDetails: p.json<BillingDetails>().nullable(),
    userInfo: p.json<{ sub: string; email: string | null }>().nullable(),
    customConsentProvided: p.boolean().nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type CheckoutSession = InferEntity<typeof CheckoutSession>;
