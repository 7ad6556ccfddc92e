import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { Currency } from './payment.entity.js';

export type PaymentEventName = 'CREATED' | 'ABORTED' | 'EXPIRED' | 'CANCELLED' | 'CAPTURED' | 'REFUNDED' | 'AUTHORIZED' | 'TERMINATED';

/**
 * The payment's event log, written in the same transaction as the change it records. It is also the outbox:
 * the sequence `id` orders events, and dispatch state lives beside it.
 */
export const PaymentEvent = defineEntity({
  name: 'PaymentEvent',
  tableName: 'payment_event',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    paymentId: p.uuid(),
    msn: p.string(),
    reference: p.string(),
    pspReference: p.string(),
    name: p.string().$type<PaymentEventName>(),
    currency: p.string().$type<Currency>(),
    /** The amount of this modification, not the payment total. */
    amount: p.bigint('number'),
    idempotencyKey: p.string().nullable(),
    success: p.boolean(),
    occurredAt: p.datetime(),
  },
});
export type PaymentEvent = InferEntity<typeof PaymentEvent>;
