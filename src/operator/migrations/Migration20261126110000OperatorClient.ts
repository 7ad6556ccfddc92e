import { Migration } from '@mikro-orm/migrations';

/** The operator's API clients (tools using the operator mutations): kind `operator`, owned by nobody. */
export class Migration20261126110000OperatorClient extends Migration {
  override name = 'Migration20261126110000OperatorClient';

  override up(): void {
    this.addSql(`alter table api_client drop constraint if exists api_client_kind_check,
      add constraint api_client_kind_check check (kind in ('merchant', 'partner', 'psp', 'operator')),
      drop constraint if exists api_client_owner_check,
      add constraint api_client_owner_check check (
        (kind = 'merchant' and merchant_id is not null and partner_id is null and psp_id is null) or
        (kind = 'partner' and partner_id is not null and merchant_id is null and psp_id is null) or
        (kind = 'psp' and psp_id is not null and merchant_id is null and partner_id is null) or
        (kind = 'operator' and merchant_id is null and partner_id is null and psp_id is null));`);
  }

  override down(): void {
    this.addSql(`delete from api_client where kind = 'operator';`);
    this.addSql(`alter table api_client drop constraint if exists api_client_kind_check,
      add constraint api_client_kind_check check (kind in ('merchant', 'partner', 'psp')),
      drop constraint if exists api_client_owner_check,
      add constraint api_client_owner_check check (
        (kind = 'merchant' and merchant_id is not null and partner_id is null and psp_id is null) or
        (kind = 'partner' and partner_id is not null and merchant_id is null and psp_id is null) or
        (kind = 'psp' and psp_id is not null and merchant_id is null and partner_id is null));`);
  }
}
