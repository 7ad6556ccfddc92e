import { Migration } from '@mikro-orm/migrations';

/**
 * Events get a commit-ordered position (issue 33, N1). Event ids are drawn at insert and commit out of order, so a
 * subscriber that resumed after an id missed a lower id that committed after it. A position is given to an event
 * only after it committed, by one sequencing at a time (event-sequencer.ts), so positions become visible in order:
 * a reader that sees one sees every lower one. Every reader of the stream (the bus, resumes, the events connection)
 * reads by position; the event id stays the one id clients see, and a resume maps it to its position.
 *
 * Positions are rows of their own, never an update of the event: an update would lock the event's row, which the
 * outbox dispatcher's claim (FOR UPDATE SKIP LOCKED) would then skip, and leave a dead version of it behind.
 * Rows already there committed long ago: their position is their id, and sequencing continues above the highest.
 * They are not positioned here, in one statement over the whole outbox in the migration's transaction, but by
 * `backfillPositions` (event-sequencer.ts) in bounded batches, each committed alone, which every instance runs at
 * start before it serves (the release before reads by id and needs none): `event_position_backfill` keeps where the
 * walk down the ids stands, and which events are its own, those of transactions that ended before this migration
 * (older than its snapshot's oldest running transaction, or from before `xid` was kept); every later one is the
 * sequencer's. So the two never give one event two positions, and the backfill's (ids up to the highest now) stay
 * below the sequencer's.
 * No foreign key to `domain_event`: positions are written only for events read from it, and a key would stand in the
 * way of partitioning that table (issue 36).
 */
export class Migration20261204230000EventPositions extends Migration {
  override name = 'Migration20261204230000EventPositions';

  override up(): void {
    this.addSql(`create table event_position (event_id bigint primary key, position bigint not null, msn text not null);`);
    this.addSql(`create unique index event_position_position_idx on event_position (position);`);
    this.addSql(`create index event_position_msn_idx on event_position (msn, position);`);
    // One row: the last position given, and the horizon below which every event has one. Sequencings queue on its row
    // lock, which is what orders them. Every event of a transaction older than this one's oldest running one was
    // positioned above, so that is where the horizon starts.
    this.addSql(
      `create table event_sequencer (id smallint primary key check (id = 1), last_position bigint not null, horizon xid8 not null);`,
    );
    this.addSql(`insert into event_sequencer (id, last_position, horizon)
      select 1, coalesce(max(id), 0), pg_snapshot_xmin(pg_current_snapshot()) from domain_event;`);
    this.addSql(
      `create table event_position_backfill (id smallint primary key check (id = 1), below bigint not null, before_xid xid8 not null);`,
    );
    this.addSql(`insert into event_position_backfill (id, below, before_xid)
      select 1, coalesce(max(id), 0) + 1, pg_snapshot_xmin(pg_current_snapshot()) from domain_event;`);
  }

  override down(): void {
    this.addSql(`drop table if exists event_position_backfill;`);
    this.addSql(`drop table if exists event_sequencer;`);
    this.addSql(`drop table if exists event_position;`);
  }
}
