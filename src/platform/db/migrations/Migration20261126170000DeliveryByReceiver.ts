import { Migration } from '@mikro-orm/migrations';

/**
 * The delivery engine claims per receiver (a webhook registration, a callback URL): for each receiver with room
 * under its cap, its due deliveries in due order. These indexes make that a short walk per receiver, however large
 * the backlog a slow receiver piles up; the ordering indexes (earlier pending delivery of the same stream) stay.
 * `attempt_count >= 0` (always true, by a CHECK) keeps the held-back probe off these indexes: without statistics
 * (a new database, a table just grown by a burst) PostgreSQL took the narrower receiver index for it too and read
 * every pending row of the receiver per probe (EXPLAIN in bench/README.md), where the ordering index reads one.
 */
export class Migration20261126170000DeliveryByReceiver extends Migration {
  override name = 'Migration20261126170000DeliveryByReceiver';

  override up(): void {
    this.addSql(`create index webhook_delivery_receiver_due_idx on webhook_delivery (webhook_id, next_attempt_at, id)
      where status = 'pending' and attempt_count >= 0;`);
    this.addSql(`create index outbound_callback_receiver_due_idx on outbound_callback (url, next_attempt_at, id)
      where status = 'pending' and attempt_count >= 0;`);
  }

  override down(): void {
    this.addSql(`drop index if exists webhook_delivery_receiver_due_idx;`);
    this.addSql(`drop index if exists outbound_callback_receiver_due_idx;`);
  }
}
