import type { Currency } from './payment.entity.js';

export type PaymentEventName = 'CREATED' | 'ABORTED' | 'EXPIRED' | 'CANCELLED' | 'CAPTURED' | 'REFUNDED' | 'AUTHORIZED' | 'TERMINATED';

/**
 * One event of a payment's log, as the ePayment API, the graph and webhooks show it. Stored as the `payment`
 * stream of the outbox (`domain_event`, see payment-event.types.ts); the `payment_event` view reads it back in
 * these columns. Not an entity of its own: events are written through `recordEvent`.
 */
export interface PaymentEvent {
  /** The outbox id: orders the log, pages it, and is the webhook's de-duplication id. */
  id: number;
  paymentId: string;
  msn: string;
  reference: string;
  pspReference: string;
  name: PaymentEventName;
  currency: Currency;
  /** The amount of this modification, not the payment total. */
  amount: number;
  idempotencyKey: string | null;
  success: boolean;
  occurredAt: Date;
}
