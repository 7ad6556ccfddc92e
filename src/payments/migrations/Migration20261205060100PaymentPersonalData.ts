import { Migration } from '@mikro-orm/migrations';

/**
 * Personal data on a payment has a retention after the payment ends (README, Data lifecycle): Express's
 * `shipping_details` and `profile_sub`, the link to the profile `userDetails` is read from. The prune clears both and
 * says when in `personal_data_removed_at`; the payment, its amounts and its events stay.
 *
 * The prune finds what is due through a partial index of the payments that still hold such data, by their last
 * change (`updated_at`): it shrinks as data is removed. Adding a nullable column is instant; building the index reads
 * the table once under a SHARE lock, which makes writers of `payment` wait for that scan (as the earlier indexes of
 * this table did): CREATE INDEX CONCURRENTLY refuses to run in the migrations' one transaction.
 */
export class Migration20261205060100PaymentPersonalData extends Migration {
  override name = 'Migration20261205060100PaymentPersonalData';

  override up(): void {
    this.addSql(`alter table payment add column personal_data_removed_at timestamptz null;`);
    this.addSql(`create index payment_personal_data_idx on payment (updated_at)
      where personal_data_removed_at is null and (shipping_details is not null or profile_sub is not null);`);
  }

  override down(): void {
    this.addSql(`drop index if exists payment_personal_data_idx;`);
    this.addSql(`alter table payment drop column personal_data_removed_at;`);
  }
}
