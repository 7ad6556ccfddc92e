/**
 * The per-stream order of deliveries to one receiver, as SQL over a `delivery` row aliased `d`. A webhook delivery
 * waits while an earlier event of its stream (a payment, a checkout session, ...) is still pending for the same
 * registration, or not yet dispatched at all; a callback waits while an earlier-recorded callback of its stream to
 * the same URL is pending. The deliverer claims only what none holds; the graph shows a pending webhook delivery that
 * one of them holds as waiting for an earlier event.
 */
export const EARLIER_DELIVERY_PENDING = `exists (
  select 1 from delivery earlier
  where earlier.receiver = d.receiver and earlier.stream_type = d.stream_type and earlier.stream_id = d.stream_id
    and earlier.status = 'pending' and earlier.event_id < d.event_id)`;

export const EARLIER_EVENT_UNDISPATCHED = `exists (
  select 1 from domain_event undispatched
  where undispatched.stream_type = d.stream_type and undispatched.stream_id = d.stream_id
    and undispatched.id < d.event_id and undispatched.dispatched_at is null)`;

/** Callbacks carry no event: recorded in order, they are sent in the order of their ids. */
export const EARLIER_CALLBACK_PENDING = `exists (
  select 1 from delivery earlier
  where earlier.receiver = d.receiver and earlier.stream_type = d.stream_type and earlier.stream_id = d.stream_id
    and earlier.status = 'pending' and earlier.event_id is null and earlier.id < d.id)`;
