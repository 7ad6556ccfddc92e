import { Migration } from '@mikro-orm/migrations';

/**
 * A wallet user's addresses besides the default one (userinfo's `other_addresses`, the addresses an Express user picks
 * from on the landing page): Kari Nordmann of the test environment has a second one (issue 34). Expand-only: a
 * nullable column, which code before this migration never reads.
 */
export class Migration20261205020002OtherAddresses extends Migration {
  override name = 'Migration20261205020002OtherAddresses';

  override up(): void {
    this.addSql(`alter table user_profile add column other_addresses jsonb;`);
  }

  override down(): void {
    this.addSql(`alter table user_profile drop column other_addresses;`);
  }
}
