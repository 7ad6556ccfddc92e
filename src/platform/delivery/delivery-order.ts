/**
 * The per-stream order of deliveries to one receiver, as SQL over a `delivery` row aliased `d`. A webhook delivery
 * waits while an earlier event of its stream (a payment, a checkout session, ...) is still pending for the same
 * registration, or not yet dispatched at all; a callback waits while an earlier-recorded callback of its stream to
 * the same URL is pending. The deliverer claims only what none holds; the graph shows a pending webhook delivery that
 * one of them holds as waiting for an earlier event. Pending is named `lower(status) = 'pending'`, and `id > 0`
 * (always true) names the index of pending rows by stream, the one index these probes can use, whose size no
 * statistics misjudge (Migration20261205070000ClaimIndexes).
 */
export const EARLIER_DELIVERY_PENDING = `exists (
  select 1 from delivery earlier
  where earlier.receiver = d.receiver and earlier.stream_type = d.stream_type and earlier.stream_id = d.stream_id
    and lower(earlier.status) = 'pending' and earlier.id > 0 and earlier.event_id < d.event_id)`;

/**
 * Read through the stream's own index (its earlier events: a payment's log, a few), not the index of undispatched
 * events: `num_nulls(…) = 1` is `dispatched_at is null` in a form that index cannot serve. Statistics taken when every
 * event was dispatched make that index look empty, and a probe through it reads every undispatched event before this
 * one, and every entry the dispatcher left dead since the last vacuum: the outbox's backlog, once per candidate.
 */
export const EARLIER_EVENT_UNDISPATCHED = `exists (
  select 1 from domain_event undispatched
  where undispatched.stream_type = d.stream_type and undispatched.stream_id = d.stream_id
    and undispatched.id < d.event_id and num_nulls(undispatched.dispatched_at) = 1)`;

/** Callbacks carry no event: recorded in order, they are sent in the order of their ids. */
export const EARLIER_CALLBACK_PENDING = `exists (
  select 1 from delivery earlier
  where earlier.receiver = d.receiver and earlier.stream_type = d.stream_type and earlier.stream_id = d.stream_id
    and lower(earlier.status) = 'pending' and earlier.id > 0 and earlier.event_id is null and earlier.id < d.id)`;
