import { Migration } from '@mikro-orm/migrations';

/** A wallet app lists its user's pending payments by phone number (issue 35): only CREATED ones are indexed. */
export class Migration20261205030100PendingByCustomer extends Migration {
  override name = 'Migration20261205030100PendingByCustomer';

  override up(): void {
    this.addSql(`create index if not exists payment_pending_customer_idx on payment (customer_phone_number) where state = 'CREATED';`);
  }

  override down(): void {
    this.addSql(`drop index if exists payment_pending_customer_idx;`);
  }
}
