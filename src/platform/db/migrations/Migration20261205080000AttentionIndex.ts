import { Migration } from '@mikro-orm/migrations';

/**
 * The undelivered webhook deliveries that payments needing attention start from, indexed on a predicate that no
 * statistics inform (issue 36), as the claim's indexes are (Migration20261205070000ClaimIndexes). On `status <>
 * 'delivered'` the planner sizes the index by the statistics of `status`: taken during a burst, while most deliveries
 * were pending, they say most rows are undelivered long after the burst was delivered, and the gauge then read every
 * event (80,616 buffers over 20,000 deliveries, 45 with fresh statistics) and the graph's page the whole delivery
 * table (1,799 buffers). `lower(status) in ('pending', 'failed')` names the same rows (status is one of three by its
 * check); ANALYZE gathers nothing for that expression, so the planner sizes it by a fixed small share of the table,
 * never by a sample. `event_id > 0`, always true, is stated by the attention query alone: without it the claim's
 * conditions imply this predicate too, and a claim over freshly analyzed statistics read every pending row through it
 * (10,830 buffers with 2,000 pending, 704 with 40). The index on `status <> 'delivered'` stays for a previous version during a rolling upgrade; a
 * later release drops it.
 */
export class Migration20261205080000AttentionIndex extends Migration {
  override name = 'Migration20261205080000AttentionIndex';

  override up(): void {
    this.addSql(`create index delivery_attention_idx on delivery (event_id)
      where kind = 'webhook' and lower(status) in ('pending', 'failed') and event_id > 0;`);
  }

  override down(): void {
    this.addSql(`drop index if exists delivery_attention_idx;`);
  }
}
