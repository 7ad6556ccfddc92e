import { Migration } from '@mikro-orm/migrations';

/**
 * Outbound callbacks (the PSP make-payment callback, checkout callbacks): one row per callback, written in the
 * transaction of the change that calls for it, with the URL and Authorization value its recipient chose, and one
 * row per attempt, written at claim time before the POST as webhook attempts are.
 */
export class Migration20261123000006OutboundCallbacks extends Migration {
  override name = 'Migration20261123000006OutboundCallbacks';

  override up(): void {
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
        created_at timestamptz not null
      );`);
    this.addSql(`create index outbound_callback_due_idx on outbound_callback (next_attempt_at) where status = 'pending';`);
    // Earlier pending callbacks of the same stream to the same URL hold later ones back.
    this.addSql(
      `create index outbound_callback_order_idx on outbound_callback (stream_type, stream_id, url, id) where status = 'pending';`,
    );
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
  }

  override down(): void {
    this.addSql(`drop table if exists outbound_callback_attempt;`);
    this.addSql(`drop table if exists outbound_callback;`);
  }
}
