import { Migration } from '@mikro-orm/migrations';

/**
 * The delivery engine claims per receiver (a webhook registration, a callback URL): for each receiver with room
 * under its cap, its due deliveries in due order. These indexes make that a short walk per receiver, however large
 * the backlog a slow receiver piles up; the ordering indexes (earlier pending delivery of the same stream) stay.
 */
export class Migration20261126170000DeliveryByReceiver extends Migration {
  override name = 'Migration20261126170000DeliveryByReceiver';

  override up(): void {
    this.addSql(`create index webhook_delivery_receiver_due_idx on webhook_delivery (webhook_id, next_attempt_at, id)
      where status = 'pending';`);
    this.addSql(`create index outbound_callback_receiver_due_idx on outbound_callback (url, next_attempt_at, id)
      where status = 'pending';`);
  }

  override down(): void {
    this.addSql(`drop index if exists webhook_delivery_receiver_due_idx;`);
    this.addSql(`drop index if exists outbound_callback_receiver_due_idx;`);
  }
}
