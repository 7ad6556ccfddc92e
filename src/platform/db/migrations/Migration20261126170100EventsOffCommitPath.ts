import { Migration } from '@mikro-orm/migrations';

/**
 * Events leave the commit path. The insert trigger's `pg_notify` made every writing transaction take PostgreSQL's
 * global notification-queue lock at commit, so every writer that emitted an event serialized there; it is dropped.
 * Readers now find new events by reading the outbox (see DomainEventBus), which needs to know which events may still
 * appear below ids already read: each row keeps the id of the transaction that wrote it (`xid`), and a reader keeps
 * re-reading only events of transactions at or above the oldest one still running. Rows written before this
 * migration have no `xid`: their transactions ended long ago.
 */
export class Migration20261126170100EventsOffCommitPath extends Migration {
  override name = 'Migration20261126170100EventsOffCommitPath';

  override up(): void {
    this.addSql(`drop trigger if exists domain_event_notify on domain_event;`);
    this.addSql(`drop function if exists domain_event_notify();`);
    // Added empty, then defaulted: existing rows are not rewritten.
    this.addSql(`alter table domain_event add column xid xid8 null;`);
    this.addSql(`alter table domain_event alter column xid set default pg_current_xact_id();`);
    this.addSql(`create index domain_event_xid_idx on domain_event (xid);`);
  }

  override down(): void {
    this.addSql(`drop index if exists domain_event_xid_idx;`);
    this.addSql(`alter table domain_event drop column xid;`);
    this.addSql(`
      create function domain_event_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('domain_event', new.id::text);
        return null;
      end;
      $$;`);
    this.addSql(`
      create trigger domain_event_notify after insert on domain_event
        for each row execute function domain_event_notify();`);
  }
}
