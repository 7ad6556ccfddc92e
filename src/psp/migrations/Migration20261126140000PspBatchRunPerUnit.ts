import { Migration } from '@mikro-orm/migrations';

/**
 * The nightly batch runs per PSP sales unit and period, by that unit's time (its test clock in the test
 * environment), so one unit's night never applies another's updates. Runs made before were for every unit at once:
 * they keep their period under the sales-unit key `*`.
 */
export class Migration20261126140000PspBatchRunPerUnit extends Migration {
  override name = 'Migration20261126140000PspBatchRunPerUnit';

  override up(): void {
    this.addSql(`alter table psp_batch_run add column msn varchar(6) not null default '*';`);
    this.addSql(`alter table psp_batch_run alter column msn drop default;`);
    this.addSql(`alter table psp_batch_run drop constraint psp_batch_run_pkey;`);
    this.addSql(`alter table psp_batch_run add primary key (msn, period);`);
  }

  override down(): void {
    this.addSql(`delete from psp_batch_run where msn <> '*';`);
    this.addSql(`alter table psp_batch_run drop constraint psp_batch_run_pkey;`);
    this.addSql(`alter table psp_batch_run drop column msn;`);
    this.addSql(`alter table psp_batch_run add primary key (period);`);
  }
}
