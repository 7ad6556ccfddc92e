import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * The outbox, one table for every domain: each row is one event of one stream (a payment, a PSP payment, a
 * checkout session, ...), written in the transaction of the change it records (see `recordEvent`). The sequence
 * `id` orders events and is what cursors name; `dispatched_at` (set by the dispatcher's own SQL, so not mapped
 * here) marks the event as fanned out.
 */
export const DomainEvent = defineEntity({
  name: 'DomainEvent',
  tableName: 'domain_event',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    /** What kind of thing the stream is about, e.g. `payment`. */
    streamType: p.string(),
    /** Which one, as text whatever the domain's key type. */
    streamId: p.string(),
    /** The sales unit the event belongs to: what tenancy filters on, for webhooks and subscribers alike. */
    msn: p.string(),
    /** The public event name, e.g. `epayments.payment.captured.v1`: what webhook registrations match. */
    name: p.string(),
    /** The event's body, stored once; each domain reads its own shape from it. */
    payload: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
    /** The W3C traceparent of the request that recorded it (null without tracing): its webhooks go out in that trace. */
    traceParent: p.string().nullable(),
  },
});
export type DomainEvent = InferEntity<typeof DomainEvent>;
