import { Migration } from '@mikro-orm/migrations';

/**
 * Payments that need attention (src/webhooks/payment-attention.queries.ts) start from the webhook deliveries not yet
 * acknowledged: pending (retrying, or held back) or failed. Delivered ones, nearly all rows, stay out of the index,
 * so the graph's page and the gauge's scrape read a few rows however large the table grows.
 */
export class Migration20261204230001UndeliveredWebhooks extends Migration {
  override name = 'Migration20261204230001UndeliveredWebhooks';

  override up(): void {
    this.addSql(
      `create index if not exists delivery_undelivered_webhook_idx on delivery (event_id) where kind = 'webhook' and status <> 'delivered';`,
    );
  }

  override down(): void {
    this.addSql(`drop index if exists delivery_undelivered_webhook_idx;`);
  }
}
