import { Migration } from '@mikro-orm/migrations';

/**
 * Express in ePayment (issue 34): the shipping a create offers (`payment.shipping`: its groups or its dynamic
 * callback, as given) and the user's choice recorded at approval (`payment.shipping_details`). Expand-only: nullable
 * columns, which code before this migration never reads.
 */
export class Migration20261205020000ExpressShipping extends Migration {
  override name = 'Migration20261205020000ExpressShipping';

  override up(): void {
    this.addSql(`alter table payment add column shipping jsonb, add column shipping_details jsonb;`);
  }

  override down(): void {
    this.addSql(`alter table payment drop column shipping_details, drop column shipping;`);
  }
}
