import { Migration } from '@mikro-orm/migrations';

/**
 * Contract (issue 36: expand, then contract, a release apart). The release that landed with
 * Migration20261205060000AttemptLogContract and Migration20261205080000ReadIndexes reads neither of these; they were
 * kept for the release before it, which read attempts through `delivery_attempt_legacy` beside the log and found
 * payments needing attention through the index on `status <> 'delivered'`. No instance of that release may run once
 * this one starts: a rolling upgrade skips no release.
 *
 * `drop index` takes its table's lock for a catalog change only: the start's lock timeout (orm.ts) bounds its wait
 * behind the old release's statements on `delivery`.
 */
export class Migration20261206000000PreviousReleaseShapes extends Migration {
  override name = 'Migration20261206000000PreviousReleaseShapes';

  override up(): void {
    this.addSql(`drop view if exists delivery_attempt_legacy;`);
    this.addSql(`drop index if exists delivery_undelivered_webhook_idx;`);
  }

  override down(): void {
    this.addSql(
      `create index if not exists delivery_undelivered_webhook_idx on delivery (event_id) where kind = 'webhook' and status <> 'delivered';`,
    );
    this.addSql(`create view delivery_attempt_legacy as
      select id, delivery_id, attempted_at, status_code, duration_ms, error from delivery_attempt where false;`);
  }
}
