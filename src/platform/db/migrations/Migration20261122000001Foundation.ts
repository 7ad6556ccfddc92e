import { Migration } from '@mikro-orm/migrations';

/** Merchants, credentials, test users, payments with their event log, and idempotency records. */
export class Migration20261122000001Foundation extends Migration {
  override name = 'Migration20261122000001Foundation';

  override up(): void {
    this.addSql(`
      create table merchant (
        id uuid primary key,
        name text not null,
        org_number varchar(9) not null,
        created_at timestamptz not null
      );`);
    this.addSql(`
      create table sales_unit (
        msn varchar(6) primary key check (msn ~ '^[0-9]{4,6}$'),
        merchant_id uuid not null references merchant (id),
        name text not null,
        long_living_payments_allowed boolean not null default false,
        created_at timestamptz not null
      );`);
    this.addSql(`create index sales_unit_merchant_idx on sales_unit (merchant_id);`);
    this.addSql(`
      create table api_client (
        client_id varchar(100) primary key,
        client_secret_digest char(64) not null,
        subscription_key_digest char(64) not null,
        merchant_id uuid not null references merchant (id),
        created_at timestamptz not null
      );`);
    this.addSql(`
      create table test_user (
        phone_number varchar(15) primary key,
        sub uuid not null unique,
        given_name text not null,
        family_name text not null,
        email text not null,
        street_address text not null,
        postal_code text not null,
        region text not null,
        country char(2) not null,
        birth_date text not null,
        nin text not null,
        approved_payments_count integer not null default 0 check (approved_payments_count >= 0)
      );`);
    this.addSql(`
      create table payment (
        id uuid primary key,
        msn varchar(6) not null references sales_unit (msn),
        reference varchar(50) not null,
        psp_reference varchar(20) not null,
        state varchar(10) not null
          check (state in ('CREATED', 'AUTHORIZED', 'ABORTED', 'EXPIRED', 'TERMINATED')),
        currency char(3) not null check (currency in ('NOK', 'DKK', 'EUR')),
        amount bigint not null check (amount >= 0),
        authorized_amount bigint not null default 0 check (authorized_amount >= 0),
        captured_amount bigint not null default 0 check (captured_amount >= 0),
        cancelled_amount bigint not null default 0 check (cancelled_amount >= 0),
        refunded_amount bigint not null default 0 check (refunded_amount >= 0),
        payment_method_type varchar(6) not null check (payment_method_type in ('WALLET', 'CARD')),
        card_bin char(6),
        user_flow varchar(16) not null
          check (user_flow in ('PUSH_MESSAGE', 'NATIVE_REDIRECT', 'WEB_REDIRECT', 'QR')),
        customer_interaction varchar(20) not null,
        customer_phone_number varchar(15),
        customer_personal_qr varchar(255),
        customer_token text,
        return_url text,
        receipt_url text,
        payment_description varchar(100),
        receipt jsonb,
        industry_data jsonb,
        metadata jsonb,
        profile_scope text,
        profile_sub uuid,
        qr_format varchar(16),
        qr_size integer,
        approval_token varchar(64) not null unique,
        expires_at timestamptz not null,
        authorized_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        constraint payment_reference_unique unique (msn, reference),
        constraint payment_authorized_within_amount check (authorized_amount <= amount),
        constraint payment_capture_within_authorized
          check (state = 'TERMINATED' or captured_amount + cancelled_amount <= authorized_amount),
        constraint payment_refund_within_captured check (refunded_amount <= captured_amount)
      );`);
    this.addSql(`create index payment_msn_created_idx on payment (msn, created_at desc, id desc);`);
    this.addSql(`create index payment_pending_expiry_idx on payment (expires_at) where state = 'CREATED';`);
    this.addSql(`
      create table payment_event (
        id bigint generated always as identity primary key,
        payment_id uuid not null references payment (id) deferrable initially deferred,
        msn varchar(6) not null,
        reference varchar(50) not null,
        psp_reference varchar(20) not null,
        name varchar(10) not null
          check (name in ('CREATED', 'ABORTED', 'EXPIRED', 'CANCELLED', 'CAPTURED', 'REFUNDED', 'AUTHORIZED', 'TERMINATED')),
        currency char(3) not null,
        amount bigint not null check (amount >= 0),
        idempotency_key varchar(50),
        success boolean not null,
        occurred_at timestamptz not null
      );`);
    this.addSql(`create index payment_event_payment_idx on payment_event (payment_id, id);`);
    this.addSql(`
      create table idempotency_record (
        id bigint generated always as identity primary key,
        client_id varchar(100) not null,
        msn varchar(6) not null,
        operation varchar(40) not null,
        idempotency_key varchar(50) not null,
        request_digest char(64) not null,
        outcome jsonb not null,
        created_at timestamptz not null,
        constraint idempotency_record_scope_unique unique (client_id, msn, operation, idempotency_key)
      );`);
  }

  override down(): void {
    for (const table of ['idempotency_record', 'payment_event', 'payment', 'test_user', 'api_client', 'sales_unit', 'merchant']) {
      this.addSql(`drop table if exists ${table};`);
    }
  }
}
