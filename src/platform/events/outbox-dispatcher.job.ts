import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { WEBHOOK_KIND } from '../delivery/delivery.entity.js';
import { eventTypes } from './event-types.js';

const BATCH_SIZE = 200;

/**
 * Fans committed outbox events, of every domain, out to webhook registrations: for each undispatched event, one
 * webhook delivery (a row of the generic `delivery` table, its receiver the registration) per registration of the same sales unit that subscribed to its public name (only names a domain
 * registered as webhook events), and the event marked dispatched, in one statement (so one transaction). Events
 * are claimed FOR UPDATE SKIP LOCKED, so instances running this at once take disjoint batches, and an uncommitted
 * event is invisible until it commits. The unique (webhook, event) pair makes a repeated fan-out harmless. Each
 * delivery carries its event's stream, which orders deliveries per (registration, stream).
 */
export async function dispatchOutbox(services: Services): Promise<number> {
  const em = forkEm(services.orm);
  const webhookNames = JSON.stringify(eventTypes.webhookEventNames());
  const aliases = JSON.stringify(eventTypes.webhookEventAliases());
  let total = 0;
  for (;;) {
    const now = services.clock.now();
    const rows = await em.execute<{ id: unknown }[]>(
      `with claimed as (
         select id, stream_type, stream_id, msn, name, trace_parent from domain_event
         where dispatched_at is null
         order by id
         limit ?
         for update skip locked
       ), fanned_out as (
         insert into delivery (kind, receiver, webhook_id, event_id, stream_type, stream_id, status, attempt_count,
           next_attempt_at, trace_parent, created_at)
         select '${WEBHOOK_KIND}', w.id, w.id, c.id, c.stream_type, c.stream_id, 'pending', 0, ?, c.trace_parent, ?
         from claimed c
         join webhook w on w.msn = c.msn and (
           w.events @> jsonb_build_array(c.name)
           or exists (select 1 from jsonb_array_elements_text(coalesce(?::jsonb -> c.name, '[]'::jsonb)) as a(alias)
                      where w.events @> jsonb_build_array(a.alias)))
         where ?::jsonb @> jsonb_build_array(c.name)
         on conflict (webhook_id, event_id) do nothing
         returning id
       )
       update domain_event e set dispatched_at = ?
       from claimed c
       where e.id = c.id
       returning e.id`,
      [BATCH_SIZE, now, now, aliases, webhookNames, now],
    );
    total += rows.length;
    if (rows.length < BATCH_SIZE) return total;
  }
}
