import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { DeliveryStatus } from './delivery-status.js';

/**
 * One callback to send: written in the transaction of the change that calls for it (see `recordCallback`), so a
 * restart loses none, and retried per its kind until delivered or out of attempts. Callbacks of one stream to
 * one URL go out in the order they were recorded.
 */
export const OutboundCallback = defineEntity({
  name: 'OutboundCallback',
  tableName: 'outbound_callback',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    /** A registered CallbackKind's name: fixes timeout and retry policy. */
    kind: p.string(),
    /** The stream the callback is about (e.g. `psp-payment` and its id): what orders callbacks. */
    streamType: p.string(),
    streamId: p.string(),
    msn: p.string().nullable(),
    url: p.string(),
    /** The Authorization header value the recipient chose (a token), sent as given; none when absent. */
    authorizationValue: p.string().nullable(),
    /** The exact JSON body to POST. */
    body: p.text(),
    status: p.string().$type<DeliveryStatus>(),
    attemptCount: p.integer(),
    nextAttemptAt: p.datetime(),
    /** While set and in the future, one deliverer owns the row (its POST runs outside any transaction). */
    leaseUntil: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    lastStatusCode: p.integer().nullable(),
    /** The W3C traceparent of the request that recorded it (null without tracing): it goes out in that trace. */
    traceParent: p.string().nullable(),
    createdAt: p.datetime(),
  },
});
export type OutboundCallback = InferEntity<typeof OutboundCallback>;

/**
 * One POST of a callback: written when the callback is claimed, before the POST, and completed afterwards; one
 * without a duration is in flight, or interrupted (with `error`) when its instance stopped mid-POST.
 */
export const OutboundCallbackAttempt = defineEntity({
  name: 'OutboundCallbackAttempt',
  tableName: 'outbound_callback_attempt',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    callbackId: p.bigint('number'),
    attemptedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    durationMs: p.integer().nullable(),
    error: p.string().nullable(),
  },
});
export type OutboundCallbackAttempt = InferEntity<typeof OutboundCallbackAttempt>;
