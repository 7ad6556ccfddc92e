import { Migration } from '@mikro-orm/migrations';

/**
 * What the management interface shows and changes of a merchant and its sales units (FACTS §9): the merchant's
 * status, a sales unit's status (a DEACTIVATED unit refuses new payments), capture type, whether it may skip the
 * landing page or take recurring payments, and its logo (a PNG).
 */
export class Migration20261123161200SalesUnitSettings extends Migration {
  override name = 'Migration20261123161200SalesUnitSettings';

  override up(): void {
    this.addSql(
      `alter table merchant add column status varchar(12) not null default 'ACTIVE' check (status in ('ACTIVE', 'DEACTIVATED'));`,
    );
    this.addSql(`alter table sales_unit
      add column status varchar(12) not null default 'ACTIVE' check (status in ('ACTIVE', 'DEACTIVATED')),
      add column capture_type varchar(16) not null default 'ReserveCapture'
        check (capture_type in ('ReserveCapture', 'DirectCapture', 'NotApplicable')),
      add column skip_landing_page_allowed boolean not null default false,
      add column recurring_allowed boolean not null default false,
      add column logo text null,
      add column version integer not null default 1;`);
  }

  override down(): void {
    this.addSql(`alter table sales_unit drop column status, drop column capture_type, drop column skip_landing_page_allowed,
      drop column recurring_allowed, drop column logo, drop column version;`);
    this.addSql(`alter table merchant drop column status;`);
  }
}
