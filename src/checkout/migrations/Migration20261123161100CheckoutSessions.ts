import { Migration } from '@mikro-orm/migrations';

/** Checkout sessions (FACTS §8): one row per session, its reference unique per sales unit, its payment once initiated. */
export class Migration20261123161100CheckoutSessions extends Migration {
  override name = 'Migration20261123161100CheckoutSessions';

  override up(): void {
    this.addSql(`
      create table checkout_session (
        id text primary key,
        msn varchar(6) not null references sales_unit (msn),
        reference varchar(50) not null,
        state text not null check (state in ('SessionCreated', 'PaymentInitiated', 'PaymentSuccessful', 'PaymentTerminated', 'SessionExpired')),
        currency char(3) not null,
        amount bigint not null check (amount > 0),
        payment_description text not null,
        request jsonb not null,
        page_token text not null unique,
        client_id text not null,
        buyer_address jsonb null,
        offered_shipping jsonb null,
        payment_id uuid null unique references payment (id),
        payment_method text null,
        shipping_details jsonb null,
        billing_details jsonb null,
        user_info jsonb null,
        custom_consent_provided boolean null,
        expires_at timestamptz not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        constraint checkout_session_reference_unique unique (msn, reference),
        constraint checkout_session_payment_once_initiated check (state in ('SessionCreated') or payment_id is not null or state in ('PaymentTerminated', 'SessionExpired'))
      );`);
    // The merchant's sessions newest first (the graph's connection), and the expiry job's due sessions.
    this.addSql(`create index checkout_session_msn_created_idx on checkout_session (msn, created_at desc, id desc);`);
    this.addSql(
      `create index checkout_session_due_idx on checkout_session (expires_at) where state in ('SessionCreated', 'PaymentInitiated');`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists checkout_session;');
  }
}
