import { Migration } from '@mikro-orm/migrations';

/**
 * The claim counts each receiver's leased deliveries (its in-flight POSTs, against the per-receiver cap). Without an
 * index it read every pending row to find the few leased ones, so a backlog made every claim slower. Leased rows are
 * at most the cap per receiver and instance, so this index stays small however long the backlog grows.
 */
export class Migration20261127030000DeliveryLeases extends Migration {
  override name = 'Migration20261127030000DeliveryLeases';

  override up(): void {
    this.addSql(
      `create index delivery_leased_idx on delivery (receiver, lease_until) where status = 'pending' and lease_until is not null;`,
    );
  }

  override down(): void {
    this.addSql(`drop index if exists delivery_leased_idx;`);
  }
}
