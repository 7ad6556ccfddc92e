import type { NewEvent } from '../platform/events/new-event.js';
import type { PaymentEventName } from './payment-event.entity.js';
import { PAYMENT_STREAM, paymentEventPayload, paymentOutboxName } from './payment-event.types.js';
import type { Payment } from './payment.entity.js';
import { newPspReference } from './psp-reference.js';

/** A payment's event as the outbox keeps it, for the write runner to write (payment-for-verb.ts). */
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
