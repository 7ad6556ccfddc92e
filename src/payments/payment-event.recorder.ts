import type { Em } from '../platform/db/orm.js';
import { PaymentEvent, type PaymentEventName } from './payment-event.entity.js';
import type { Payment } from './payment.entity.js';
import { newPspReference } from './psp-reference.js';

/**
 * Appends an event to the payment's log in the caller's transaction, so the change and its event commit or
 * roll back together. The log is the outbox that webhooks and subscriptions are fed from.
 */
export function recordPaymentEvent(
  em: Em,
  payment: Payment,
  name: PaymentEventName,
  amount: number,
  idempotencyKey: string | null,
  occurredAt: Date,
): PaymentEvent {
  return em.create(PaymentEvent, {
    paymentId: payment.id,
    msn: payment.msn,
    reference: payment.reference,
    pspReference: newPspReference(),
    name,
    currency: payment.currency,
    amount,
    idempotencyKey,
    success: true,
    occurredAt,
  });
}
