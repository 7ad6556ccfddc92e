import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';

const BATCH_SIZE = 200;

/**
 * Fans committed payment events out to webhook registrations: for each undispatched event, one delivery per
 * registration of the same sales unit that subscribed to its public name, and the event marked dispatched, in
 * one statement (so one transaction). Events are claimed FOR UPDATE SKIP LOCKED, so instances running this at
 * once take disjoint batches, and an uncommitted event is invisible until it commits. The unique (webhook, event)
 * pair makes a repeated fan-out harmless.
 */
export async function dispatchOutbox(services: Services): Promise<number> {
  const em = forkEm(services.orm);
  let total = 0;
  for (;;) {
    const now = services.clock.now();
    const rows = await em.execute<{ id: unknown }[]>(
      `with claimed as (
         select id, payment_id, msn, name from payment_event
         where dispatched_at is null
         order by id
         limit ?
         for update skip locked
       ), fanned_out as (
         insert into webhook_delivery (webhook_id, event_id, payment_id, status, attempt_count, next_attempt_at, created_at)
         select w.id, c.id, c.payment_id, 'pending', 0, ?, ?
         from claimed c
         join webhook w on w.msn = c.msn and w.events @> jsonb_build_array('epayments.payment.' || lower(c.name) || '.v1')
         on conflict (webhook_id, event_id) do nothing
         returning id
       )
       update payment_event e set dispatched_at = ?
       from claimed c
       where e.id = c.id
       returning e.id`,
      [BATCH_SIZE, now, now, now],
    );
    total += rows.length;
    if (rows.length < BATCH_SIZE) return total;
  }
}
