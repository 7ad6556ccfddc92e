import { Migration } from '@mikro-orm/migrations';

/**
 * One merchant per organisation number among the merchants the back office onboards (the command line, the
 * operator mutations, product orders): creating one twice made two (issue 33, N10). A PSP's signup makes a merchant
 * of its own for each signup, as PSPs onboard their merchants apart from the platform's, so those are marked and
 * left out (`signed_up_by_psp`: the merchants of `psp_signup_merchant`).
 *
 * Existing duplicates: the oldest merchant of an organisation number keeps it; each newer one is kept as it is,
 * with its sales units, clients and ledger working, and marked `duplicate_of` the oldest, so the index holds without
 * deleting or moving anything that payments, ledgers or tokens refer to. The back office finds them with
 * `select id, duplicate_of from merchant where duplicate_of is not null` and deactivates or keeps them by hand.
 */
export class Migration20261204100000MerchantOrgNumber extends Migration {
  override name = 'Migration20261204100000MerchantOrgNumber';

  override up(): void {
    this.addSql(`
      alter table merchant
        add column signed_up_by_psp boolean not null default false,
        add column duplicate_of uuid references merchant (id);`);
    this.addSql(`update merchant set signed_up_by_psp = true where id in (select merchant_id from psp_signup_merchant);`);
    this.addSql(`
      update merchant m set duplicate_of = first.id
      from (
        select distinct on (org_number) id, org_number from merchant where not signed_up_by_psp order by org_number, created_at, id
      ) first
      where m.org_number = first.org_number and m.id <> first.id and not m.signed_up_by_psp;`);
    this.addSql(
      `create unique index merchant_org_number_key on merchant (org_number) where not signed_up_by_psp and duplicate_of is null;`,
    );
  }

  override down(): void {
    this.addSql(`drop index if exists merchant_org_number_key;`);
    this.addSql(`alter table merchant drop column duplicate_of, drop column signed_up_by_psp;`);
  }
}
