import { Migration } from '@mikro-orm/migrations';

/**
 * The walk of the event positions' backfill (event-sequencer.ts) for a database that ran
 * Migration20261204230000EventPositions before it left the backfill to that walk: such a database positioned every
 * existing event in that migration, so its walk starts done (`below` 0). A database that ran it since has the table,
 * and this changes nothing.
 */
export class Migration20261205060200EventPositionBackfill extends Migration {
  override name = 'Migration20261205060200EventPositionBackfill';

  override up(): void {
    this.addSql(
      `create table if not exists event_position_backfill (id smallint primary key check (id = 1), below bigint not null, before_xid xid8 not null);`,
    );
    this.addSql(`insert into event_position_backfill (id, below, before_xid) values (1, 0, '0'::xid8) on conflict (id) do nothing;`);
  }

  override down(): void {}
}
