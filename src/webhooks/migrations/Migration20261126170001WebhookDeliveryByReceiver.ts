import { Migration } from '@mikro-orm/migrations';

/**
 * The delivery engine claims per receiver: for each registration with room under its cap, its due deliveries in due
 * order. This index makes that a short walk per registration, however large the backlog a slow receiver piles up; the
 * ordering index (an earlier pending delivery of the same stream) stays. `attempt_count >= 0` (always true, by a
 * CHECK) keeps the held-back probe off this index: without statistics (a new database, a table just grown by a burst)
 * PostgreSQL took the narrower receiver index for it too and read every pending row of the registration per probe
 * (bench/README.md, webhook throughput), where the ordering index reads one.
 */
export class Migration20261126170001WebhookDeliveryByReceiver extends Migration {
  override name = 'Migration20261126170001WebhookDeliveryByReceiver';

  override up(): void {
    this.addSql(`create index webhook_delivery_receiver_due_idx on webhook_delivery (webhook_id, next_attempt_at, id)
      where status = 'pending' and attempt_count >= 0;`);
  }

  override down(): void {
    this.addSql(`drop index if exists webhook_delivery_receiver_due_idx;`);
  }
}
