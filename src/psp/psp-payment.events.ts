import type { Em } from '../platform/db/orm.js';
import type { EventTypeDefinition } from '../platform/events/event-types.js';
import { recordEvent } from '../platform/events/record-event.js';
import { PspPaymentLog, type PspPayment } from './psp-payment.entity.js';

/** The outbox stream of PSP payments; the stream id is the payment id. */
export const PSP_PAYMENT_STREAM = 'psp-payment';

/**
 * PSP payment changes reach graph subscribers through the outbox; the public definitions name no webhook event for
 * them, so none is offered to webhooks.
 */
export const pspPaymentEventTypes: EventTypeDefinition = {
  streamType: PSP_PAYMENT_STREAM,
  webhookEventNames: [],
  webhookBody: () => {
    throw new Error('PSP payment events are not sent to webhooks');
  },
};

/** `psp.payment.<name>.v1`: a state change (`reserved`) or an operation (`captured`, `update-failed`). */
export function pspEventName(name: string): string {
  return `psp.payment.${name.toLowerCase().replace(/_/g, '-')}.v1`;
}

/**
 * Records one change of a PSP payment in the caller's unit of work: its outbox event and, for money operations, its
 * log line, so both commit with the change.
 */
export function recordPspChange(
  em: Em,
  payment: PspPayment,
  now: Date,
  change: { name: string; log?: { operation: string; amount: number; paymentText: string | null; success: boolean } },
): void {
  if (change.log) em.create(PspPaymentLog, { pspPaymentId: payment.id, ...change.log, occurredAt: now });
  recordEvent(em, {
    streamType: PSP_PAYMENT_STREAM,
    streamId: payment.id,
    msn: payment.msn,
    name: pspEventName(change.name),
    occurredAt: now,
    payload: {
      pspTransactionId: payment.pspTransactionId,
      merchantOrderId: payment.merchantOrderId,
      state: payment.state,
      ...(change.log ? { operation: change.log.operation, amount: change.log.amount, success: change.log.success } : {}),
    },
  });
}
