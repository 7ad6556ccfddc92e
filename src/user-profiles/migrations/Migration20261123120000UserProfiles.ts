import { Migration } from '@mikro-orm/migrations';

/**
 * User profiles and the consents that share them. The profile moves out of the wallet's `test_user` (which keeps
 * who the simulated user is and what they did): one place holds a person's name, address and identity number.
 */
export class Migration20261123120000UserProfiles extends Migration {
  override name = 'Migration20261123120000UserProfiles';

  override up(): void {
    this.addSql(`
      create table user_profile (
        sub uuid primary key,
        phone_number varchar(15) not null unique check (phone_number ~ '^[0-9]{10,15}$'),
        given_name text not null,
        family_name text not null,
        email text not null,
        email_verified boolean not null,
        birthdate varchar(10) not null check (birthdate ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
        nin varchar(11) not null check (nin ~ '^[0-9]{11}$'),
        street_address text not null,
        postal_code text not null,
        region text not null,
        country char(2) not null
      );`);
    this.addSql(`
      create table user_bank_account (
        sub uuid not null references user_profile (sub),
        account_number varchar(11) not null check (account_number ~ '^[0-9]{11}$'),
        account_name text not null,
        bank_name text not null,
        primary key (sub, account_number)
      );`);
    this.addSql(`
      create table user_consent (
        id uuid primary key,
        payment_id uuid not null unique references payment (id),
        sub uuid not null,
        msn varchar(6) not null references sales_unit (msn),
        scope text not null check (scope <> ''),
        consented_at timestamptz not null,
        expires_at timestamptz not null check (expires_at > consented_at)
      );`);
    // userinfo/{sub}: the sales unit's newest consents of one user.
    this.addSql(`create index user_consent_sub_msn_idx on user_consent (sub, msn, consented_at desc);`);
    for (const column of [
      'given_name',
      'family_name',
      'email',
      'street_address',
      'postal_code',
      'region',
      'country',
      'birth_date',
      'nin',
    ]) {
      this.addSql(`alter table test_user drop column ${column};`);
    }
  }

  override down(): void {
    // The profile columns come back empty-defaulted; the test environment's seed refills profiles at start.
    for (const column of ['given_name', 'family_name', 'email', 'street_address', 'postal_code', 'region', 'birth_date', 'nin']) {
      this.addSql(`alter table test_user add column ${column} text not null default '';`);
    }
    this.addSql(`alter table test_user add column country char(2) not null default 'NO';`);
    for (const table of ['user_consent', 'user_bank_account', 'user_profile']) this.addSql(`drop table if exists ${table};`);
  }
}
