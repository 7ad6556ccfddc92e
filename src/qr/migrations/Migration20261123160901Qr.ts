import { Migration } from '@mikro-orm/migrations';

/**
 * QR codes (FACTS §5): merchant redirect QRs, one-time payment QRs, callback QRs and mapped MobilePay beacons, each
 * with a stable key (its image URL and, for callback QRs, its scan URL); and the check-ins a scan records.
 */
export class Migration20261123160901Qr extends Migration {
  override name = 'Migration20261123160901Qr';

  override up(): void {
    this.addSql(`
      create table qr_code (
        key uuid primary key,
        msn varchar(6) not null references sales_unit (msn),
        kind varchar(8) not null check (kind in ('redirect', 'onetime', 'callback', 'beacon')),
        qr_id varchar(255) not null check (length(qr_id) between 1 and 255),
        target_url text,
        location_description text,
        expires_at timestamptz,
        created_at timestamptz not null,
        constraint qr_code_unique unique (msn, kind, qr_id)
      );`);
    this.addSql(`
      create table qr_check_in (
        customer_token varchar(64) primary key,
        qr_key uuid not null references qr_code (key) on delete cascade,
        msn varchar(6) not null references sales_unit (msn),
        phone_number varchar(15) not null,
        initiated_at timestamptz not null
      );`);
  }
}
