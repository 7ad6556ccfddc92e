import { Migration } from '@mikro-orm/migrations';

/**
 * PSP payments (FACTS §6): the sales units that take them, the payments with their money columns (the database
 * guards captured + cancelled <= reserved and refunded <= captured), their operation log, the queue of status
 * updates the nightly batch applies, the recurring agreements, and the batch runs (one per night).
 */
export class Migration20261123161000PspPayments extends Migration {
  override name = 'Migration20261123161000PspPayments';

  override up(): void {
    this.addSql(`
      create table psp_sales_unit (
        msn varchar(6) primary key references sales_unit (msn),
        psp_id uuid not null references psp (id),
        skip_landing_page_allowed boolean not null default false,
        active boolean not null default true,
        created_at timestamptz not null
      );`);
    this.addSql(`
      create table psp_agreement (
        id uuid primary key,
        psp_id uuid not null references psp (id),
        msn varchar(6) not null references sales_unit (msn),
        user_sub uuid not null,
        status text not null check (status in ('ACTIVE', 'STOPPED')),
        created_at timestamptz not null,
        stopped_at timestamptz
      );`);
    this.addSql(`
      create table psp_payment (
        id uuid primary key,
        psp_id uuid not null references psp (id),
        msn varchar(6) not null references sales_unit (msn),
        psp_transaction_id varchar(36) not null check (psp_transaction_id ~ '^[a-z0-9]{1,36}$'),
        merchant_order_id varchar(50) not null,
        amount bigint not null check (amount >= 0 and amount <= 2147483647),
        currency char(3) not null,
        state text not null,
        customer_mobile_number varchar(8),
        psp_redirect_url text,
        make_payment_url text,
        make_payment_token varchar(255),
        payment_text text,
        is_app boolean not null default false,
        skip_landing_page boolean not null default false,
        scope text,
        merchant_agreement_url text,
        approval_token text unique,
        agreement_id uuid references psp_agreement (id),
        approved_by_sub uuid,
        reserved_amount bigint not null default 0,
        captured_amount bigint not null default 0,
        cancelled_amount bigint not null default 0,
        refunded_amount bigint not null default 0,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        expires_at timestamptz not null,
        constraint psp_payment_transaction_unique unique (psp_id, psp_transaction_id),
        constraint psp_payment_order_unique unique (msn, merchant_order_id),
        constraint psp_payment_reserved_le_amount check (reserved_amount <= amount),
        constraint psp_payment_captured_le_reserved check (captured_amount + cancelled_amount <= reserved_amount),
        constraint psp_payment_refunded_le_captured check (refunded_amount <= captured_amount)
      );`);
    this.addSql(`create index psp_payment_timeout_idx on psp_payment (expires_at) where state = 'INITIATED';`);
    this.addSql(`create index psp_payment_psp_msn_idx on psp_payment (psp_id, msn, created_at desc, id desc);`);
    this.addSql(`
      create table psp_payment_log (
        id bigserial primary key,
        psp_payment_id uuid not null references psp_payment (id),
        operation text not null,
        amount bigint not null,
        payment_text text,
        success boolean not null,
        occurred_at timestamptz not null
      );`);
    this.addSql(`create index psp_payment_log_payment_idx on psp_payment_log (psp_payment_id, id);`);
    this.addSql(`
      create table psp_status_update (
        id bigserial primary key,
        psp_id uuid not null references psp (id),
        psp_payment_id uuid not null references psp_payment (id),
        status text not null,
        operation_status text not null check (operation_status in ('SUCCESS', 'FAILED')),
        amount bigint not null check (amount >= 0 and amount <= 2147483647),
        currency char(3) not null,
        payment_text text,
        received_at timestamptz not null,
        applied_at timestamptz,
        outcome text
      );`);
    this.addSql(`create index psp_status_update_pending_idx on psp_status_update (id) where applied_at is null;`);
    this.addSql(`
      create table psp_batch_run (
        period date primary key,
        started_at timestamptz not null,
        finished_at timestamptz,
        applied_count integer not null default 0
      );`);
  }

  override down(): void {
    for (const table of ['psp_batch_run', 'psp_status_update', 'psp_payment_log', 'psp_payment', 'psp_agreement', 'psp_sales_unit']) {
      this.addSql(`drop table if exists ${table};`);
    }
  }
}
