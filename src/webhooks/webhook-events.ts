import type { PaymentEvent, PaymentEventName } from '../payments/payment-event.entity.js';

const PAYMENT_EVENT_NAMES: readonly PaymentEventName[] = [
  'CREATED',
  'ABORTED',
  'EXPIRED',
  'CANCELLED',
  'CAPTURED',
  'REFUNDED',
  'AUTHORIZED',
  'TERMINATED',
];

/** The public name a registration subscribes to for a payment event, e.g. `epayments.payment.captured.v1`. */
export function webhookEventName(name: PaymentEventName): string {
  return `epayments.payment.${name.toLowerCase()}.v1`;
}

/** Every event a webhook may be registered for (FACTS §2, ePayment events only: nothing else is emitted here). */
export const WEBHOOK_EVENT_NAMES: ReadonlySet<string> = new Set(PAYMENT_EVENT_NAMES.map(webhookEventName));

/** The ePayment `WebhookEvent` body: the same shape for every event, only `name` differs. */
export function webhookPayload(event: PaymentEvent): string {
  return JSON.stringify({
    msn: event.msn,
    reference: event.reference,
    pspReference: event.pspReference,
    name: event.name,
    amount: { currency: event.currency, value: event.amount },
    timestamp: event.occurredAt.toISOString(),
    idempotencyKey: event.idempotencyKey ?? null,
    success: event.success,
  });
}
