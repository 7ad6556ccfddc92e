import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { DeliveryStatus } from './delivery-status.js';

/** The kind of a webhook delivery; every other kind is a registered callback kind's name (callback-kinds.ts). */
export const WEBHOOK_KIND = 'webhook';

/**
 * One outbound delivery of any kind (a webhook event for one registration, the PSP make-payment callback, a checkout
 * callback), retried by its kind's policy until delivered or given up. Deliveries of one stream to one receiver go
 * out in order, one at a time: webhooks by their event's id, callbacks in the order they were recorded.
 */
export const Delivery = defineEntity({
  name: 'Delivery',
  tableName: 'delivery',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    /** `webhook`, or a registered CallbackKind's name: fixes timeout, retries and what the request is built from. */
    kind: p.string(),
    /**
     * Who receives it, the unit of per-receiver fairness and of per-stream order: a webhook registration's id, a
     * callback's URL as its digest (callbackReceiver), so the key is as narrow for both.
     */
    receiver: p.uuid(),
    /** A webhook delivery's registration (deleting it deletes its deliveries); null for callbacks. */
    webhookId: p.uuid().nullable(),
    /** A webhook delivery's event, whose body it sends and whose id orders its stream; null for callbacks. */
    eventId: p.bigint('number').nullable(),
    /** The stream it is about (a payment, a checkout session, ...): what orders deliveries to one receiver. */
    streamType: p.string(),
    streamId: p.string(),
    /** The sales unit whose test clock times a callback's retries; null: the platform's clock (every webhook). */
    msn: p.string().nullable(),
    /** A callback's URL, chosen by its recipient; a webhook goes to its registration's URL at the time of sending. */
    url: p.string().nullable(),
    /** A callback's Authorization header value, chosen by its recipient and sent as given; none when absent. */
    authorizationValue: p.string().nullable(),
    /** A callback's exact JSON body; a webhook's is made from its event when sent. */
    body: p.text().nullable(),
    status: p.string().$type<DeliveryStatus>(),
    attemptCount: p.integer(),
    nextAttemptAt: p.datetime(),
    /** While set and in the future, one deliverer owns the row (its POST runs outside any transaction). */
    leaseUntil: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    lastStatusCode: p.integer().nullable(),
    /** The W3C traceparent of the request that caused it (null without tracing): it goes out in that trace. */
    traceParent: p.string().nullable(),
    createdAt: p.datetime(),
  },
});
export type Delivery = InferEntity<typeof Delivery>;

/**
 * One POST of a delivery: written when the delivery is claimed, before the POST, and completed afterwards with the
 * receiver's status code, or why there was none; one without a duration is in flight, or interrupted (with
 * `error`) when its instance stopped mid-POST.
 */
export const DeliveryAttempt = defineEntity({
  name: 'DeliveryAttempt',
  tableName: 'delivery_attempt',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    deliveryId: p.bigint('number'),
    attemptedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    durationMs: p.integer().nullable(),
    error: p.string().nullable(),
  },
});
export type DeliveryAttempt = InferEntity<typeof DeliveryAttempt>;
