import { Migration } from '@mikro-orm/migrations';

/**
 * Contract of Migration20261205060000WalletUser, a release after it: `test_user`, the view kept for the release that
 * wrote wallet users under that name, goes. The release of the expand step and this one read and write `wallet_user`
 * only.
 */
export class Migration20261206000000WalletUserContract extends Migration {
  override name = 'Migration20261206000000WalletUserContract';

  override up(): void {
    this.addSql(`drop view if exists test_user;`);
  }

  override down(): void {
    this.addSql(`create view test_user as select phone_number, sub, approved_payments_count from wallet_user;`);
  }
}
