import { Migration } from '@mikro-orm/migrations';

/**
 * Data lifecycle (README, Data lifecycle; issue 36).
 *
 * `prune_run`: what each prune removed, per kind of data, so the operator graph and the payment's page can say so.
 *
 * The attempt log, expand step: `delivery_attempt` becomes a table partitioned by day of `attempted_at`, pruned by
 * detaching (CONCURRENTLY) and dropping whole days (time-partitions.ts). The table with data is not rewritten at start:
 * it is renamed `delivery_attempt_legacy` (instant), read beside the new one (`ATTEMPTS`) and emptied by bounded
 * deletes as it ages; a later release's contract step drops it and the union. Its foreign key to `delivery` is
 * dropped, and the new table has none: dropping a detached partition that still had one would remove its trigger on
 * `delivery`, an ACCESS EXCLUSIVE lock on `delivery`. No default partition exists (DETACH … CONCURRENTLY refuses one).
 * The first days are created here; the prune's partition creator keeps days ahead. Ids go on from the old table's.
 */
export class Migration20261205040000DataLifecycle extends Migration {
  override name = 'Migration20261205040000DataLifecycle';

  override up(): void {
    this.addSql(`create table prune_run (
      id bigint generated always as identity primary key,
      kind varchar(40) not null,
      cutoff timestamptz not null,
      removed bigint not null check (removed >= 0),
      ran_at timestamptz not null
    );`);
    this.addSql(`create index prune_run_kind_idx on prune_run (kind, ran_at desc);`);
    this.addSql(`alter table delivery_attempt rename to delivery_attempt_legacy;`);
    this.addSql(`alter table delivery_attempt_legacy drop constraint delivery_attempt_delivery_id_fkey;`);
    this.addSql(`alter table delivery_attempt_legacy rename constraint delivery_attempt_pkey to delivery_attempt_legacy_pkey;`);
    this.addSql(`alter index delivery_attempt_delivery_idx rename to delivery_attempt_legacy_delivery_idx;`);
    // An attempt still in flight can no longer get its outcome: its sender records into the new table, where it is
    // not. It is interrupted, as a claim marks an attempt whose sender stopped (INTERRUPTED_ATTEMPT_ERROR, as it read
    // when this migration was written), and its delivery is sent again once its lease runs out.
    this.addSql(
      `update delivery_attempt_legacy set error = 'interrupted: the sending instance stopped before recording an outcome'
       where duration_ms is null and error is null;`,
    );
    this.addSql(`create sequence delivery_attempt_log_id_seq;`);
    this.addSql(`select setval('delivery_attempt_log_id_seq', coalesce((select max(id) from delivery_attempt_legacy), 0) + 1, false);`);
    this.addSql(`create table delivery_attempt (
      id bigint not null default nextval('delivery_attempt_log_id_seq'),
      delivery_id bigint not null,
      attempted_at timestamptz not null,
      status_code integer,
      duration_ms integer check (duration_ms >= 0),
      error text,
      constraint delivery_attempt_outcome_check check (duration_ms is not null or status_code is null),
      primary key (id, attempted_at)
    ) partition by range (attempted_at);`);
    this.addSql(`alter sequence delivery_attempt_log_id_seq owned by delivery_attempt.id;`);
    this.addSql(`create index delivery_attempt_delivery_idx on delivery_attempt (delivery_id, id);`);
    this.addSql(`do $$
      declare day date;
      begin
        for day in select generate_series((now() at time zone 'utc')::date - 1, (now() at time zone 'utc')::date + 14, interval '1 day')::date loop
          execute format('create table %I partition of delivery_attempt for values from (%L) to (%L)',
            'delivery_attempt_p' || to_char(day, 'YYYYMMDD'), day::text || ' 00:00:00+00', (day + 1)::text || ' 00:00:00+00');
        end loop;
      end $$;`);
  }

  override down(): void {
    this.addSql(`drop table delivery_attempt;`);
    this.addSql(`alter table delivery_attempt_legacy rename to delivery_attempt;`);
    this.addSql(`alter table delivery_attempt rename constraint delivery_attempt_legacy_pkey to delivery_attempt_pkey;`);
    this.addSql(`alter index delivery_attempt_legacy_delivery_idx rename to delivery_attempt_delivery_idx;`);
    this.addSql(
      `alter table delivery_attempt add constraint delivery_attempt_delivery_id_fkey foreign key (delivery_id) references delivery (id) on delete cascade not valid;`,
    );
    this.addSql(`drop table prune_run;`);
  }
}
