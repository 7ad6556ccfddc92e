import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { DeliveryStatus } from '../platform/delivery/delivery-status.js';

/** A merchant's registration: where to POST which events of one sales unit, signed with `secret`. */
export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhook',
  properties: {
    id: p.uuid().primary(),
    msn: p.string(),
    url: p.string(),
    /** Public event names, e.g. `epayments.payment.captured.v1`. */
    events: p.json<string[]>(),
    /** The HMAC key, as handed out at registration; needed in clear to sign every delivery. */
    secret: p.string(),
    createdAt: p.datetime(),
  },
});
export type Webhook = InferEntity<typeof Webhook>;

export type WebhookDeliveryStatus = DeliveryStatus;

/** One event for one registration, retried until delivered or out of time. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    webhookId: p.uuid(),
    eventId: p.bigint('number'),
    /** Copied from the event, so "an earlier delivery of this stream is still pending" is an index lookup. */
    streamType: p.string(),
    streamId: p.string(),
    status: p.string().$type<WebhookDeliveryStatus>(),
    attemptCount: p.integer(),
    nextAttemptAt: p.datetime(),
    /** While set and in the future, one deliverer owns the row (its POST runs outside any transaction). */
    leaseUntil: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    lastStatusCode: p.integer().nullable(),
    createdAt: p.datetime(),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;

/**
 * What happened on one POST: the receiver's status code, or why there was none. Written when the delivery is
 * claimed and completed when the POST ends; one without a duration is in flight, or interrupted (with `error`).
 */
export const WebhookDeliveryAttempt = defineEntity({
  name: 'WebhookDeliveryAttempt',
  tableName: 'webhook_delivery_attempt',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    deliveryId: p.bigint('number'),
    attemptedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    durationMs: p.integer().nullable(),
    error: p.string().nullable(),
  },
});
export type WebhookDeliveryAttempt = InferEntity<typeof WebhookDeliveryAttempt>;
