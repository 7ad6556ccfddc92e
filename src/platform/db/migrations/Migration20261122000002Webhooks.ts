import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook registrations, their deliveries (one per registration and event) and every delivery attempt, plus the
 * outbox marker on the payment event log: `dispatched_at` is set in the transaction that creates the event's
 * deliveries, so an event is fanned out exactly once however many instances run the dispatcher.
 */
export class Migration20261122000002Webhooks extends Migration {
  override name = 'Migration20261122000002Webhooks';

  override up(): void {
    this.addSql(`alter table payment_event add column dispatched_at timestamptz;`);
    // Events logged before webhooks existed had no registration to go to; without this the first dispatch would
    // walk the whole history for nothing.
    this.addSql(`update payment_event set dispatched_at = occurred_at;`);
    this.addSql(`create index payment_event_undispatched_idx on payment_event (id) where dispatched_at is null;`);
    this.addSql(`
      create table webhook (
        id uuid primary key,
        msn varchar(6) not null references sales_unit (msn),
        url text not null,
        events jsonb not null check (jsonb_typeof(events) = 'array'),
        secret text not null,
        created_at timestamptz not null
      );`);
    this.addSql(`create index webhook_msn_idx on webhook (msn, created_at);`);
    this.addSql(`
      create table webhook_delivery (
        id bigint generated always as identity primary key,
        webhook_id uuid not null references webhook (id) on delete cascade,
        event_id bigint not null references payment_event (id),
        payment_id uuid not null,
        status varchar(9) not null check (status in ('pending', 'delivered', 'failed')),
        attempt_count integer not null default 0 check (attempt_count >= 0),
        next_attempt_at timestamptz not null,
        lease_until timestamptz,
        delivered_at timestamptz,
        last_status_code integer,
        created_at timestamptz not null,
        constraint webhook_delivery_event_unique unique (webhook_id, event_id)
      );`);
    // What the deliverer scans: due pending rows, and earlier pending rows of the same payment that hold later ones back.
    this.addSql(`create index webhook_delivery_due_idx on webhook_delivery (next_attempt_at) where status = 'pending';`);
    this.addSql(`create index webhook_delivery_order_idx on webhook_delivery (webhook_id, payment_id, event_id) where status = 'pending';`);
    this.addSql(`create index webhook_delivery_event_idx on webhook_delivery (event_id);`);
    this.addSql(`
      create table webhook_delivery_attempt (
        id bigint generated always as identity primary key,
        delivery_id bigint not null references webhook_delivery (id) on delete cascade,
        attempted_at timestamptz not null,
        status_code integer,
        duration_ms integer not null check (duration_ms >= 0),
        error text
      );`);
    this.addSql(`create index webhook_delivery_attempt_delivery_idx on webhook_delivery_attempt (delivery_id, id);`);
  }

  override down(): void {
    for (const table of ['webhook_delivery_attempt', 'webhook_delivery', 'webhook']) this.addSql(`drop table if exists ${table};`);
    this.addSql(`drop index if exists payment_event_undispatched_idx;`);
    this.addSql(`alter table payment_event drop column if exists dispatched_at;`);
  }
}
