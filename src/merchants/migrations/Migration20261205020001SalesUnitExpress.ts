import { Migration } from '@mikro-orm/migrations';

/**
 * Express in ePayment (issue 34): whether a sales unit may create Express payments (else 5020). Every unit, the test
 * environment's two included, is enabled until the operator turns it off (`set-express`). Expand-only: a column with
 * a default, which code before this migration never reads.
 */
export class Migration20261205020001SalesUnitExpress extends Migration {
  override name = 'Migration20261205020001SalesUnitExpress';

  override up(): void {
    this.addSql(`alter table sales_unit add column express_enabled boolean not null default true;`);
  }

  override down(): void {
    this.addSql(`alter table sales_unit drop column express_enabled;`);
  }
}
