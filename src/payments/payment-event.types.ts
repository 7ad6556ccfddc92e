import type { EventTypeDefinition } from '../platform/events/event-types.js';
import type { OutboxEvent } from '../platform/events/outbox-event.js';
import type { PaymentEvent, PaymentEventName } from './payment-event.entity.js';
import type { ShippingDetails } from './express-shipping.js';
import { userDetailsOf, userDetailsProfileSql, type UserDetailsProfile } from '../user-profiles/user-details.js';

/** The outbox stream type of payments' events; the stream id is the payment id. */
export const PAYMENT_STREAM = 'payment';

export const PAYMENT_EVENT_NAMES: readonly PaymentEventName[] = [
  'CREATED',
  'ABORTED',
  'EXPIRED',
  'CANCELLED',
  'CAPTURED',
  'REFUNDED',
  'AUTHORIZED',
  'TERMINATED',
];

/** The public name of a payment event, e.g. `epayments.payment.captured.v1`: the outbox name and the webhook event. */
export function paymentOutboxName(name: PaymentEventName): string {
  return `epayments.payment.${name.toLowerCase()}.v1`;
}

const BY_OUTBOX_NAME = new Map(PAYMENT_EVENT_NAMES.map((name) => [paymentOutboxName(name), name]));

/** The ePayment name (`CAPTURED`) of a payment event's public name; undefined for another stream's name. */
export function paymentEventNameOf(outboxName: string): PaymentEventName | undefined {
  return BY_OUTBOX_NAME.get(outboxName);
}

/** What the outbox keeps of a payment event: the ePayment body, minus the msn and timestamp (columns of their own). */
export interface PaymentEventPayload {
  reference: string;
  pspReference: string;
  name: PaymentEventName;
  amount: { currency: PaymentEvent['currency']; value: number };
  idempotencyKey: string | null;
  success: boolean;
}

export function paymentEventPayload(event: Omit<PaymentEvent, 'id' | 'paymentId' | 'msn' | 'occurredAt'>): PaymentEventPayload {
  return {
    reference: event.reference,
    pspReference: event.pspReference,
    name: event.name,
    amount: { currency: event.currency, value: event.amount },
    idempotencyKey: event.idempotencyKey,
    success: event.success,
  };
}

/** A payment-stream outbox event as the payment log shows it. */
export function toPaymentEvent(event: OutboxEvent): PaymentEvent {
  const payload = event.payload as unknown as PaymentEventPayload;
  return {
    id: event.id,
    paymentId: event.streamId,
    msn: event.msn,
    reference: payload.reference,
    pspReference: payload.pspReference,
    name: payload.name,
    currency: payload.amount.currency,
    amount: Number(payload.amount.value),
    idempotencyKey: payload.idempotencyKey ?? null,
    success: Boolean(payload.success),
    occurredAt: event.occurredAt,
  };
}

/**
 * What an AUTHORIZED event's delivery reads of its payment (FACTS §14.2, §14.6): the `sub` the profile is shared
 * under, the consented scope and the profile, and an Express payment's shipping. Personal data stays out of the outbox:
 * it is read when the webhook is sent, so a body sent later shows the profile as it is then.
 */
export interface AuthorizedDeliveryRead {
  sub: string | null;
  scope: string | null;
  profile: UserDetailsProfile | null;
  shippingDetails: ShippingDetails | null;
}

const AUTHORIZED = paymentOutboxName('AUTHORIZED');

/** `deliveryReadSql` of payments: over the claimed event `e`, for AUTHORIZED events only. */
const AUTHORIZED_DELIVERY_READ_SQL = `select jsonb_build_object('sub', p.profile_sub, 'scope', p.profile_scope, 'shippingDetails', p.shipping_details,
  'profile', ${userDetailsProfileSql('p.profile_sub')})
  from payment p where e.name = '${AUTHORIZED}' and p.id = e.stream_id::uuid`;

/**
 * The ePayment `WebhookEvent` body: the same shape for every event, only `name` differs. The authorized event of a
 * payment that asked for a profile carries `profile.sub` and `userDetails` (the consented scopes), and an Express
 * payment's its `shippingDetails` (WooCommerce's `handle_callback` reads them from the webhook when it comes first).
 */
export function paymentWebhookBody(event: PaymentEvent, read?: AuthorizedDeliveryRead): string {
  const userDetails = read?.sub ? userDetailsOf(read.scope, read.profile) : null;
  return JSON.stringify({
    msn: event.msn,
    reference: event.reference,
    pspReference: event.pspReference,
    name: event.name,
    amount: { currency: event.currency, value: event.amount },
    timestamp: event.occurredAt.toISOString(),
    idempotencyKey: event.idempotencyKey ?? null,
    success: event.success,
    ...(read?.sub ? { profile: { sub: read.sub } } : {}),
    ...(userDetails ? { userDetails } : {}),
    ...(read?.shippingDetails ? { shippingDetails: read.shippingDetails } : {}),
  });
}

/** Payments' events: every ePayment event may be subscribed to by a webhook (FACTS §2). */
export const paymentEventTypes: EventTypeDefinition = {
  streamType: PAYMENT_STREAM,
  webhookEventNames: PAYMENT_EVENT_NAMES.map(paymentOutboxName),
  webhookBody: (event, read) => paymentWebhookBody(toPaymentEvent(event), (read ?? undefined) as AuthorizedDeliveryRead | undefined),
  deliveryReadSql: AUTHORIZED_DELIVERY_READ_SQL,
};
