import { Migration } from '@mikro-orm/migrations';

/**
 * PSP signup (FACTS §7): the merchants a PSP signs up, each with the sales unit it gets. New MSNs come from a
 * sequence above the test environment's fixed ones. `merchant.org_number` widens to 50 characters: organisation
 * numbers of other countries than Norway are longer than 9 (the signup interface allows 1 to 50).
 */
export class Migration20261123161001PspSignup extends Migration {
  override name = 'Migration20261123161001PspSignup';

  override up(): void {
    this.addSql(`alter table merchant alter column org_number type varchar(50);`);
    this.addSql(`create sequence psp_signup_msn_seq start with 300001 maxvalue 999999;`);
    this.addSql(`
      create table psp_signup_merchant (
        msn varchar(6) primary key references sales_unit (msn),
        psp_id uuid not null references psp (id),
        merchant_id uuid not null references merchant (id),
        organization_number varchar(50) not null,
        company_name varchar(255) not null,
        company_email varchar(255) not null,
        name varchar(200) not null,
        mcc_code char(4) check (mcc_code ~ '^[0-9]{4}$'),
        logo text not null,
        email varchar(255),
        website varchar(255),
        address jsonb not null,
        status text not null check (status in ('PENDING', 'ACTIVE', 'DEACTIVATED')),
        created_at timestamptz not null,
        updated_at timestamptz not null
      );`);
    this.addSql(`create index psp_signup_merchant_psp_idx on psp_signup_merchant (psp_id, created_at, msn);`);
  }

  override down(): void {
    this.addSql(`drop table if exists psp_signup_merchant;`);
    this.addSql(`drop sequence if exists psp_signup_msn_seq;`);
  }
}
