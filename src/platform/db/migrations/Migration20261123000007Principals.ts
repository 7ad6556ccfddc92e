import { Migration } from '@mikro-orm/migrations';

/**
 * Principals other than merchants: an API client now says whom it belongs to (a merchant, a partner or a PSP),
 * partners are connected to sales units (with the merchant's consent to share its data or not), and a PSP has
 * the merchants it signed up.
 */
export class Migration20261123000007Principals extends Migration {
  override name = 'Migration20261123000007Principals';

  override up(): void {
    this.addSql(`
      create table partner (
        id varchar(20) primary key,
        name text not null,
        status varchar(20) not null check (status in ('PENDING', 'ACTIVE', 'DEACTIVATED')),
        created_at timestamptz not null
      );`);
    this.addSql(`
      create table partner_sales_unit (
        partner_id varchar(20) not null references partner (id),
        msn varchar(6) not null references sales_unit (msn),
        merchant_consent boolean not null default false,
        created_at timestamptz not null,
        primary key (partner_id, msn)
      );`);
    this.addSql(`
      create table psp (
        id uuid primary key,
        name text not null,
        created_at timestamptz not null
      );`);
    this.addSql(`
      create table psp_merchant (
        psp_id uuid not null references psp (id),
        merchant_id uuid not null references merchant (id),
        created_at timestamptz not null,
        primary key (psp_id, merchant_id)
      );`);
    this.addSql(`alter table api_client add column kind varchar(20) not null default 'merchant'
      check (kind in ('merchant', 'partner', 'psp'));`);
    this.addSql(`alter table api_client alter column merchant_id drop not null;`);
    this.addSql(`alter table api_client add column partner_id varchar(20) null references partner (id);`);
    this.addSql(`alter table api_client add column psp_id uuid null references psp (id);`);
    // Exactly the owner its kind names, so a token can never be issued for a client that belongs to nobody.
    this.addSql(`alter table api_client add constraint api_client_owner_check check (
      (kind = 'merchant' and merchant_id is not null and partner_id is null and psp_id is null) or
      (kind = 'partner' and partner_id is not null and merchant_id is null and psp_id is null) or
      (kind = 'psp' and psp_id is not null and merchant_id is null and partner_id is null));`);
  }

  override down(): void {
    this.addSql(`delete from api_client where kind <> 'merchant';`);
    this.addSql(`alter table api_client drop constraint if exists api_client_owner_check;`);
    this.addSql(`alter table api_client drop column psp_id;`);
    this.addSql(`alter table api_client drop column partner_id;`);
    this.addSql(`alter table api_client alter column merchant_id set not null;`);
    this.addSql(`alter table api_client drop column kind;`);
    for (const table of ['psp_merchant', 'psp', 'partner_sales_unit', 'partner']) this.addSql(`drop table if exists ${table};`);
  }
}
