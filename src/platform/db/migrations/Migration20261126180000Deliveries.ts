import { Migration } from '@mikro-orm/migrations';

/**
 * One table of deliveries and one of attempts, generic over the kind of delivery (a webhook event for one
 * registration, each callback kind), instead of a pair for webhooks and a pair for callbacks: the delivery engine
 * claims, leases, orders and records them all alike. Existing rows move over: webhook deliveries and their attempts
 * keep their ids (the graph's WebhookDelivery ids and attempt cursors name them), callbacks and their attempts take
 * ids above those, in their old order (which orders callbacks of one stream). The old tables are then dropped.
 */
export class Migration20261126180000Deliveries extends Migration {
  override name = 'Migration20261126180000Deliveries';

  override up(): void {
    this.addSql(`
      create table delivery (
        id bigint generated always as identity primary key,
        kind varchar(40) not null,
        receiver uuid not null,
        webhook_id uuid references webhook (id) on delete cascade,
        event_id bigint references domain_event (id),
        stream_type varchar(40) not null,
        stream_id text not null,
        msn varchar(6),
        url text,
        authorization_value text,
        body text,
        status varchar(9) not null check (status in ('pending', 'delivered', 'failed')),
        attempt_count integer not null default 0 check (attempt_count >= 0),
        next_attempt_at timestamptz not null,
        lease_until timestamptz,
        delivered_at timestamptz,
        last_status_code integer,
        trace_parent varchar(55),
        created_at timestamptz not null,
        constraint delivery_webhook_event_unique unique (webhook_id, event_id),
        -- A webhook delivery names its registration (its receiver) and its event; a callback carries its URL and
        -- body, its receiver the URL's MD5 digest as a uuid (a key of fixed width, as narrow as a registration's id).
        -- The claim reads every pending row's receiver and walks two indexes that lead with it.
        constraint delivery_kind_check check (case when kind = 'webhook'
          then webhook_id is not null and event_id is not null and receiver = webhook_id
          else webhook_id is null and event_id is null and url is not null and body is not null and receiver = md5(url)::uuid end)
      );`);
    // The claim's scans: due pending rows; per receiver, its due rows in due order (attempt_count >= 0, always true,
    // keeps the held-back probe off this index: see Migration20261126170000DeliveryByReceiver); and an earlier
    // pending delivery of the same stream to the same receiver (by event id for webhooks, by id for callbacks).
    this.addSql(`create index delivery_due_idx on delivery (next_attempt_at) where status = 'pending';`);
    this.addSql(`create index delivery_receiver_due_idx on delivery (receiver, next_attempt_at, id)
      where status = 'pending' and attempt_count >= 0;`);
    this.addSql(`create index delivery_order_idx on delivery (receiver, stream_type, stream_id, event_id, id) where status = 'pending';`);
    this.addSql(`create index delivery_event_idx on delivery (event_id);`);
    this.addSql(`
      create table delivery_attempt (
        id bigint generated always as identity primary key,
        delivery_id bigint not null references delivery (id) on delete cascade,
        attempted_at timestamptz not null,
        status_code integer,
        duration_ms integer check (duration_ms >= 0),
        error text,
        constraint delivery_attempt_outcome_check check (duration_ms is not null or status_code is null)
      );`);
    this.addSql(`create index delivery_attempt_delivery_idx on delivery_attempt (delivery_id, id);`);

    this.addSql(`
      insert into delivery (id, kind, receiver, webhook_id, event_id, stream_type, stream_id, status, attempt_count,
        next_attempt_at, lease_until, delivered_at, last_status_code, trace_parent, created_at)
      overriding system value
      select d.id, 'webhook', d.webhook_id, d.webhook_id, d.event_id, d.stream_type, d.stream_id, d.status,
        d.attempt_count, d.next_attempt_at, d.lease_until, d.delivered_at, d.last_status_code, e.trace_parent, d.created_at
      from webhook_delivery d join domain_event e on e.id = d.event_id;`);
    this.addSql(`
      insert into delivery_attempt (id, delivery_id, attempted_at, status_code, duration_ms, error)
      overriding system value
      select id, delivery_id, attempted_at, status_code, duration_ms, error from webhook_delivery_attempt;`);
    // A callback's new id: above every webhook delivery's, in its old order. Both statements number alike.
    const callbackIds = `select c.id as old_id, b.base + row_number() over (order by c.id) as new_id
      from outbound_callback c cross join (select coalesce(max(id), 0) as base from webhook_delivery) b`;
    this.addSql(`
      insert into delivery (id, kind, receiver, stream_type, stream_id, msn, url, authorization_value, body, status,
        attempt_count, next_attempt_at, lease_until, delivered_at, last_status_code, trace_parent, created_at)
      overriding system value
      select m.new_id, c.kind, md5(c.url)::uuid, c.stream_type, c.stream_id, c.msn, c.url, c.authorization_value, c.body, c.status,
        c.attempt_count, c.next_attempt_at, c.lease_until, c.delivered_at, c.last_status_code, c.trace_parent, c.created_at
      from outbound_callback c join (${callbackIds}) m on m.old_id = c.id;`);
    this.addSql(`
      insert into delivery_attempt (id, delivery_id, attempted_at, status_code, duration_ms, error)
      overriding system value
      select b.base + row_number() over (order by a.id), m.new_id, a.attempted_at, a.status_code, a.duration_ms, a.error
      from outbound_callback_attempt a join (${callbackIds}) m on m.old_id = a.callback_id
        cross join (select coalesce(max(id), 0) as base from webhook_delivery_attempt) b;`);
    for (const table of ['delivery', 'delivery_attempt']) {
      this.addSql(`select setval(pg_get_serial_sequence('${table}', 'id'), coalesce((select max(id) from ${table}), 0) + 1, false);`);
    }
    for (const table of ['webhook_delivery_attempt', 'webhook_delivery', 'outbound_callback_attempt', 'outbound_callback']) {
      this.addSql(`drop table ${table};`);
    }
  }

  override down(): void {
    this.addSql(`
      create table webhook_delivery (
        id bigint generated always as identity primary key,
        webhook_id uuid not null references webhook (id) on delete cascade,
        event_id bigint not null references domain_event (id),
        stream_type varchar(40) not null,
        stream_id text not null,
        status varchar(9) not null check (status in ('pending', 'delivered', 'failed')),
        attempt_count integer not null default 0 check (attempt_count >= 0),
        next_attempt_at timestamptz not null,
        lease_until timestamptz,
        delivered_at timestamptz,
        last_status_code integer,
        created_at timestamptz not null,
        constraint webhook_delivery_event_unique unique (webhook_id, event_id)
      );`);
    this.addSql(`create index webhook_delivery_due_idx on webhook_delivery (next_attempt_at) where status = 'pending';`);
    this.addSql(`create index webhook_delivery_order_idx on webhook_delivery (webhook_id, stream_type, stream_id, event_id)
      where status = 'pending';`);
    this.addSql(`create index webhook_delivery_event_idx on webhook_delivery (event_id);`);
    this.addSql(`create index webhook_delivery_receiver_due_idx on webhook_delivery (webhook_id, next_attempt_at, id)
      where status = 'pending' and attempt_count >= 0;`);
    this.addSql(`
      create table webhook_delivery_attempt (
        id bigint generated always as identity primary key,
        delivery_id bigint not null references webhook_delivery (id) on delete cascade,
        attempted_at timestamptz not null,
        status_code integer,
        duration_ms integer check (duration_ms >= 0),
        error text,
        constraint webhook_delivery_attempt_outcome_check check (duration_ms is not null or status_code is null)
      );`);
    this.addSql(`create index webhook_delivery_attempt_delivery_idx on webhook_delivery_attempt (delivery_id, id);`);
    this.addSql(`
      create table outbound_callback (
        id bigint generated always as identity primary key,
        kind varchar(40) not null,
        stream_type varchar(40) not null,
        stream_id text not null,
        msn varchar(6),
        url text not null,
        authorization_value text,
        body text not null,
        status varchar(9) not null check (status in ('pending', 'delivered', 'failed')),
        attempt_count integer not null default 0 check (attempt_count >= 0),
        next_attempt_at timestamptz not null,
        lease_until timestamptz,
        delivered_at timestamptz,
        last_status_code integer,
        created_at timestamptz not null,
        trace_parent varchar(55) null
      );`);
    this.addSql(`create index outbound_callback_due_idx on outbound_callback (next_attempt_at) where status = 'pending';`);
    this.addSql(
      `create index outbound_callback_order_idx on outbound_callback (stream_type, stream_id, url, id) where status = 'pending';`,
    );
    this.addSql(`create index outbound_callback_receiver_due_idx on outbound_callback (url, next_attempt_at, id)
      where status = 'pending' and attempt_count >= 0;`);
    this.addSql(`
      create table outbound_callback_attempt (
        id bigint generated always as identity primary key,
        callback_id bigint not null references outbound_callback (id) on delete cascade,
        attempted_at timestamptz not null,
        status_code integer,
        duration_ms integer check (duration_ms >= 0),
        error text,
        constraint outbound_callback_attempt_outcome_check check (duration_ms is not null or status_code is null)
      );`);
    this.addSql(`create index outbound_callback_attempt_callback_idx on outbound_callback_attempt (callback_id, id);`);

    // Back to their tables, ids kept (they are distinct across kinds).
    this.addSql(`
      insert into webhook_delivery (id, webhook_id, event_id, stream_type, stream_id, status, attempt_count, next_attempt_at,
        lease_until, delivered_at, last_status_code, created_at)
      overriding system value
      select id, webhook_id, event_id, stream_type, stream_id, status, attempt_count, next_attempt_at, lease_until,
        delivered_at, last_status_code, created_at
      from delivery where kind = 'webhook';`);
    this.addSql(`
      insert into outbound_callback (id, kind, stream_type, stream_id, msn, url, authorization_value, body, status,
        attempt_count, next_attempt_at, lease_until, delivered_at, last_status_code, created_at, trace_parent)
      overriding system value
      select id, kind, stream_type, stream_id, msn, url, authorization_value, body, status, attempt_count, next_attempt_at,
        lease_until, delivered_at, last_status_code, created_at, trace_parent
      from delivery where kind <> 'webhook';`);
    this.addSql(`
      insert into webhook_delivery_attempt (id, delivery_id, attempted_at, status_code, duration_ms, error)
      overriding system value
      select a.id, a.delivery_id, a.attempted_at, a.status_code, a.duration_ms, a.error
      from delivery_attempt a join delivery d on d.id = a.delivery_id where d.kind = 'webhook';`);
    this.addSql(`
      insert into outbound_callback_attempt (id, callback_id, attempted_at, status_code, duration_ms, error)
      overriding system value
      select a.id, a.delivery_id, a.attempted_at, a.status_code, a.duration_ms, a.error
      from delivery_attempt a join delivery d on d.id = a.delivery_id where d.kind <> 'webhook';`);
    for (const table of ['webhook_delivery', 'webhook_delivery_attempt', 'outbound_callback', 'outbound_callback_attempt']) {
      this.addSql(`select setval(pg_get_serial_sequence('${table}', 'id'), coalesce((select max(id) from ${table}), 0) + 1, false);`);
    }
    this.addSql(`drop table delivery_attempt;`);
    this.addSql(`drop table delivery;`);
  }
}
