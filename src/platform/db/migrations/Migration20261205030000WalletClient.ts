import { Migration } from '@mikro-orm/migrations';

/** A wallet app's API clients (issue 35): kind `wallet`, owned by nobody, like the operator's. */
export class Migration20261205030000WalletClient extends Migration {
  override name = 'Migration20261205030000WalletClient';

  override up(): void {
    this.addSql(`alter table api_client drop constraint if exists api_client_kind_check,
      add constraint api_client_kind_check check (kind in ('merchant', 'partner', 'psp', 'operator', 'wallet')),
      drop constraint if exists api_client_owner_check,
      add constraint api_client_owner_check check (
        (kind = 'merchant' and merchant_id is not null and partner_id is null and psp_id is null) or
        (kind = 'partner' and partner_id is not null and merchant_id is null and psp_id is null) or
        (kind = 'psp' and psp_id is not null and merchant_id is null and partner_id is null) or
        (kind in ('operator', 'wallet') and merchant_id is null and partner_id is null and psp_id is null));`);
  }

  override down(): void {
    this.addSql(`delete from api_client where kind = 'wallet';`);
    this.addSql(`alter table api_client drop constraint if exists api_client_kind_check,
      add constraint api_client_kind_check check (kind in ('merchant', 'partner', 'psp', 'operator')),
      drop constraint if exists api_client_owner_check,
      add constraint api_client_owner_check check (
        (kind = 'merchant' and merchant_id is not null and partner_id is null and psp_id is null) or
        (kind = 'partner' and partner_id is not null and merchant_id is null and psp_id is null) or
        (kind = 'psp' and psp_id is not null and merchant_id is null and partner_id is null) or
        (kind = 'operator' and merchant_id is null and partner_id is null and psp_id is null));`);
  }
}
