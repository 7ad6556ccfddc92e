import { Migration } from '@mikro-orm/migrations';

/**
 * The claim's indexes, named by a predicate that no statistics inform (issue 36). Every index of pending deliveries
 * was partial on `status = 'pending'`, and the planner sizes a partial index by that clause's selectivity in the
 * statistics of `status`. Taken while every delivery was delivered, they say no row is pending: every such index then
 * looks empty, the planner picks among them by their size on disk, and a burst of webhooks was claimed through the
 * smallest one (by due time alone), filtered by receiver and probed for held-back rows row by row: 104,821 buffers
 * for a claim with 2,000 deliveries pending, 751 with 40.
 *
 * These indexes are partial on `lower(status) = 'pending'` (the same rows: status is lower case by its check). No
 * column holds that expression, so ANALYZE gathers nothing for it: the planner sizes these indexes by a fixed share
 * of the table, never by a sample that found no pending row. And each step of the claim can use one of them only: a
 * partial index serves a statement whose conditions imply its predicate, and each index adds a condition that is
 * always true and that only its own step states (`attempt_count >= 0`, `lease_until is not null`, `id > 0`). So no
 * estimate decides which index a step reads. The indexes on `status = 'pending'` stay, for what else reads pending
 * rows (metrics, the graph's due counts) and for the claims of a previous version during a rolling upgrade.
 *
 * `if not exists`: on a large `delivery` table an operator builds them beforehand, concurrently (README, "Indexes on a
 * large table, before the upgrade"), and the start then finds them.
 */
export class Migration20261205070000ClaimIndexes extends Migration {
  override name = 'Migration20261205070000ClaimIndexes';

  override up(): void {
    // Per receiver, its pending rows in due order: the claim's skip scan of receivers and its walk.
    this.addSql(`create index if not exists delivery_claim_due_idx on delivery (receiver, next_attempt_at, id)
      where lower(status) = 'pending' and attempt_count >= 0;`);
    // Per receiver, its leased pending rows: at most its cap per instance, what the claim counts against the cap.
    this.addSql(`create index if not exists delivery_claim_leased_idx on delivery (receiver, lease_until)
      where lower(status) = 'pending' and lease_until is not null;`);
    // Per receiver and stream, its pending rows in order: the held-back probe (an earlier one of the stream pending).
    this.addSql(`create index if not exists delivery_claim_order_idx on delivery (receiver, stream_type, stream_id, event_id, id)
      where lower(status) = 'pending' and id > 0;`);
  }

  override down(): void {
    this.addSql(`drop index if exists delivery_claim_order_idx;`);
    this.addSql(`drop index if exists delivery_claim_leased_idx;`);
    this.addSql(`drop index if exists delivery_claim_due_idx;`);
  }
}
