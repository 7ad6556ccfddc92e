import { Migration } from '@mikro-orm/migrations';

/**
 * Test clocks, one per sales unit (test environment only): how far the unit's time was advanced beyond the
 * service's clock. Only moved units have a row; production has none.
 */
export class Migration20261126000008TestClocks extends Migration {
  override name = 'Migration20261126000008TestClocks';

  override up(): void {
    this.addSql(`
      create table test_clock (
        msn varchar(6) primary key references sales_unit (msn),
        offset_ms bigint not null check (offset_ms >= 0)
      );`);
  }

  override down(): void {
    this.addSql(`drop table if exists test_clock;`);
  }
}
