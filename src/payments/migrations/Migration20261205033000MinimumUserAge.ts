import { Migration } from '@mikro-orm/migrations';

/** A create's `minimumUserAge` (FACTS §14.4, issue 34): the youngest user who may approve the payment. */
export class Migration20261205033000MinimumUserAge extends Migration {
  override name = 'Migration20261205033000MinimumUserAge';

  override up(): void {
    this.addSql(`alter table payment add column if not exists minimum_user_age smallint check (minimum_user_age between 0 and 100);`);
  }

  override down(): void {
    this.addSql(`alter table payment drop column if exists minimum_user_age;`);
  }
}
