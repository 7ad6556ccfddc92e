import { Migration } from '@mikro-orm/migrations';

/**
 * The payments search by reference prefix (issue 36, the soak): `reference like 'prefix%'` can use an index range
 * only on an index whose order is by bytes, not the database's collation (C.UTF-8 here), so it read every payment of
 * the sales unit (payment_reference_unique gave only `msn = ?`): a search that grows with the merchant. With
 * `text_pattern_ops` the prefix becomes a range, and a page reads what matches (test/payments/payment-reads-flat.test.ts).
 * Expand only: a new index, nothing reads it but the planner. A database that already holds many payments gets it
 * before the upgrade, by the operator, outside the start (README, Changing the schema):
 *   create index concurrently if not exists payment_reference_prefix_idx on payment (msn, reference text_pattern_ops);
 * and this migration then finds it. Elsewhere it is built here, at once.
 */
export class Migration20261205050000PaymentReferencePrefix extends Migration {
  override name = 'Migration20261205050000PaymentReferencePrefix';

  override up(): void {
    this.addSql(`create index if not exists payment_reference_prefix_idx on payment (msn, reference text_pattern_ops);`);
  }

  override down(): void {
    this.addSql(`drop index if exists payment_reference_prefix_idx;`);
  }
}
