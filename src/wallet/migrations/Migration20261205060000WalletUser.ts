import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35: the wallet's users were kept in `test_user`, but since wallet apps approve in production (a user the app
 * names for the first time is made known by their first approval) they are wallet users of every environment:
 * the table is `wallet_user` now.
 *
 * Expand: the release before this one reads and writes `test_user` (selects, `for update`, `insert … on conflict do
 * nothing`, updates of the approval count) and serves beside this one during a rolling upgrade. The rename is one
 * statement, and `test_user` stays as a view of `wallet_user`: a view over one table with no joins is updatable in
 * PostgreSQL, so each of those statements of the old release reaches the same rows (`test/wallet/wallet-user-rename.test.ts`
 * runs them). No row is copied and nothing is written twice. Contract (a later release, once no instance of the
 * release before this one runs): `drop view test_user`.
 */
/** The table's constraints (and the indexes behind its key and unique `sub`), named after the table as PostgreSQL named them. */
const CONSTRAINTS = [
  ['test_user_pkey', 'wallet_user_pkey'],
  ['test_user_sub_key', 'wallet_user_sub_key'],
  ['test_user_approved_payments_count_check', 'wallet_user_approved_payments_count_check'],
] as const;

export class Migration20261205060000WalletUser extends Migration {
  override name = 'Migration20261205060000WalletUser';

  override up(): void {
    this.addSql(`alter table test_user rename to wallet_user;`);
    for (const [old, renamed] of CONSTRAINTS) this.addSql(`alter table wallet_user rename constraint ${old} to ${renamed};`);
    this.addSql(`create view test_user as select phone_number, sub, approved_payments_count from wallet_user;`);
  }

  override down(): void {
    this.addSql(`drop view test_user;`);
    for (const [old, renamed] of CONSTRAINTS) this.addSql(`alter table wallet_user rename constraint ${renamed} to ${old};`);
    this.addSql(`alter table wallet_user rename to test_user;`);
  }
}
