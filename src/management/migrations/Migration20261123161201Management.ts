import { Migration } from '@mikro-orm/migrations';

/**
 * The management interface's own data (FACTS §9): price packages, product orders pre-filled by partners (with the
 * page token the merchant opens them by), and API quality totals per (sales unit, endpoint, status, day).
 */
export class Migration20261123161201Management extends Migration {
  override name = 'Migration20261123161201Management';

  override up(): void {
    this.addSql(`alter table partner add column level varchar(30) not null default 'Vipps Partner',
      add column contact_name text null, add column contact_email text null;`);
    this.addSql(`
      create table price_package (
        id uuid primary key,
        name text not null,
        description text not null,
        visible_in_signup_form boolean not null,
        product_type varchar(30) not null check (product_type in ('ePayment', 'ePaymentCustomerPresent'))
      );`);
    this.addSql(`
      create table product_order (
        id uuid primary key,
        partner_id varchar(20) not null references partner (id),
        org_number varchar(9) not null check (org_number ~ '^[0-9]{9}$'),
        product_type varchar(20) not null check (product_type in ('SVC_PA_NETT', 'SVC_LOGG_INN', 'SVC_CHECKOUT', 'SVC_I_KASSA')),
        product_use_case varchar(20) null,
        sales_unit_name varchar(30) null,
        sales_unit_logo text null,
        settlement_account_number varchar(11) null,
        price_package_id uuid null references price_package (id),
        annual_turnover bigint null check (annual_turnover >= 0),
        intended_purpose text null,
        website jsonb null,
        compliance_data jsonb null,
        status varchar(24) not null
          check (status in ('RECEIVED', 'ACCESSED', 'PROCESSING', 'WAITING_FOR_MERCHANT', 'COMPLETED', 'DELETED')),
        needs_manual_entry boolean not null,
        page_token varchar(64) not null unique,
        msn varchar(6) null references sales_unit (msn),
        created_at timestamptz not null,
        submitted_at timestamptz null
      );`);
    // Sales units created from submitted product orders get MSNs from here (the test environment's are below it).
    this.addSql(`create sequence sales_unit_msn_seq start 300000 maxvalue 999999;`);
    this.addSql(`create index product_order_partner_idx on product_order (partner_id, created_at, id);`);
    this.addSql(`
      create table api_quality_count (
        msn varchar(6) not null,
        endpoint varchar(200) not null,
        status smallint not null,
        day date not null,
        count bigint not null check (count >= 0),
        primary key (msn, endpoint, status, day)
      );`);
  }

  override down(): void {
    for (const table of ['api_quality_count', 'product_order', 'price_package']) this.addSql(`drop table if exists ${table};`);
    this.addSql(`drop sequence if exists sales_unit_msn_seq;`);
    this.addSql(`alter table partner drop column level, drop column contact_name, drop column contact_email;`);
  }
}
