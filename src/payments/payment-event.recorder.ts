import type { Em } from '../platform/db/orm.js';
import { recordEvent, type NewEvent } from '../platform/events/record-event.js';
import type { PaymentEventName } from './payment-event.entity.js';
import { PAYMENT_STREAM, paymentEventPayload, paymentOutboxName } from './payment-event.types.js';
import type { Payment } from './payment.entity.js';
import { newPspReference } from './psp-reference.js';

/**
 * Appends an event to the payment's stream of the outbox in the caller's transaction, so the change and its event
 * commit or roll back together; webhooks and subscriptions are fed from it.
 */
export function recordPaymentEvent(
  em: Em,
  payment: Payment,
  name: PaymentEventName,
  amount: number,
  idempotencyKey: string | null,
  occurredAt: Date,
): void {
  recordEvent(em, paymentEvent(payment, name, amount, idempotencyKey, occurredAt));
}

/** A payment's event as the outbox keeps it, recorded by `recordPaymentEvent` or written by SQL (a modification). */
export function paymentEvent(
  payment: Payment,
  name: PaymentEventName,
  amount: number,
  idempotencyKey: string | null,
  occurredAt: Date,
): NewEvent {
  return {
    streamType: PAYMENT_STREAM,
    streamId: payment.id,
    msn: payment.msn,
    name: paymentOutboxName(name),
    payload: {
      ...paymentEventPayload({
        reference: payment.reference,
        pspReference: newPspReference(),
        name,
        currency: payment.currency,
        amount,
        idempotencyKey,
        success: true,
      }),
    },
    occurredAt,
  };
}
