/**
 * The per-stream order of webhook deliveries, as SQL over a `webhook_delivery` row aliased `d`: a delivery waits
 * while an earlier event of its stream (a payment, a checkout session, ...) is still pending for the same
 * registration, or not yet dispatched at all. The deliverer claims only what neither holds; the graph shows a
 * pending delivery that one of them holds as waiting for an earlier event.
 */
export const EARLIER_DELIVERY_PENDING = `exists (
  select 1 from webhook_delivery earlier
  where earlier.webhook_id = d.webhook_id and earlier.stream_type = d.stream_type and earlier.stream_id = d.stream_id
    and earlier.status = 'pending' and earlier.event_id < d.event_id)`;

export const EARLIER_EVENT_UNDISPATCHED = `exists (
  select 1 from domain_event undispatched
  where undispatched.stream_type = d.stream_type and undispatched.stream_id = d.stream_id
    and undispatched.id < d.event_id and undispatched.dispatched_at is null)`;
