import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for reads whose plans must not follow the size of the delivery table, whatever its statistics (issue 36;
 * test/webhooks/webhook-claim-cost-stale-stats.test.ts).
 *
 * The undelivered webhook deliveries that payments needing attention start from, on a predicate that no statistics
 * inform, as the claim's indexes are (Migration20261205070000ClaimIndexes). On `status <> 'delivered'` the planner
 * sizes the index by the statistics of `status`: taken during a burst, while most deliveries were pending, they say
 * most rows are undelivered long after the burst was delivered, and the graph's page then read the whole delivery
 * table (1,503 buffers over 21,000 deliveries, 73 over 1,000; the gauge 80,616 over 20,000 in a trial database).
 * `lower(status) in ('pending', 'failed')` names the same rows (status is one of three by its check); ANALYZE gathers
 * nothing for that expression, so the planner sizes it by a fixed small share of the table, never by a sample.
 * `event_id > 0`, always true, is stated by the attention query alone: without it the claim's conditions imply this
 * predicate too, and a claim over freshly analyzed statistics read every pending row through it (10,830 buffers with
 * 2,000 pending, 704 with 40). The index on `status <> 'delivered'` stays for a previous version during a rolling
 * upgrade; a later release drops it.
 *
 * A registration's deliveries, newest first: its pages (the graph's, the REST list's) were read by walking the
 * primary key down through every registration's deliveries (2,324 buffers for a first page beside 80,000 deliveries
 * to other registrations, 109 beside none).
 *
 * `if not exists`, as the claim's: built beforehand, concurrently, on a large table.
 */
export class Migration20261205080000ReadIndexes extends Migration {
  override name = 'Migration20261205080000ReadIndexes';

  override up(): void {
    this.addSql(`create index if not exists delivery_attention_idx on delivery (event_id)
      where kind = 'webhook' and lower(status) in ('pending', 'failed') and event_id > 0;`);
    this.addSql(`create index if not exists delivery_webhook_page_idx on delivery (webhook_id, id);`);
  }

  override down(): void {
    this.addSql(`drop index if exists delivery_webhook_page_idx;`);
    this.addSql(`drop index if exists delivery_attention_idx;`);
  }
}
