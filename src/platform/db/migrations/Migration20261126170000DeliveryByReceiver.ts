import { Migration } from '@mikro-orm/migrations';

/**
 * The delivery engine claims per receiver (here a callback URL): for each receiver with room under its cap, its due
 * callbacks in due order. This index makes that a short walk per receiver, however large the backlog a slow one piles
 * up; the ordering index (an earlier pending callback of the same stream to the same URL) stays. `attempt_count >= 0`
 * (always true, by a CHECK) keeps the held-back probe off this index: without statistics PostgreSQL took the narrower
 * receiver index for it and read every pending row of the receiver per probe (bench/README.md, webhook throughput).
 */
export class Migration20261126170000DeliveryByReceiver extends Migration {
  override name = 'Migration20261126170000DeliveryByReceiver';

  override up(): void {
    this.addSql(`create index outbound_callback_receiver_due_idx on outbound_callback (url, next_attempt_at, id)
      where status = 'pending' and attempt_count >= 0;`);
  }

  override down(): void {
    this.addSql(`drop index if exists outbound_callback_receiver_due_idx;`);
  }
}
