import { Migration } from '@mikro-orm/migrations';

/**
 * The registry from Enhetsregisteret's bulk files: an entry is either fixed (the test environment's) or imported,
 * and remembers the import that last saw it, so a later full import can tell which organisations disappeared.
 * Bankrupt or winding-up organisations are `inactive`; ones gone from the register are `deleted`.
 */
export class Migration20261126100100RegistryImport extends Migration {
  override name = 'Migration20261126100100RegistryImport';

  override up(): void {
    this.addSql(`alter table business_registry_entry
      add column source text not null default 'import' check (source in ('fixed', 'import')),
      add column last_import_id uuid null,
      drop constraint if exists business_registry_entry_status_check,
      add constraint business_registry_entry_status_check check (status in ('active', 'inactive', 'deleted'));`);
    this.addSql(
      `create index business_registry_entry_import_idx on business_registry_entry (kind, last_import_id) where source = 'import';`,
    );
  }

  override down(): void {
    this.addSql(`drop index if exists business_registry_entry_import_idx;`);
    this.addSql(`update business_registry_entry set status = 'deleted' where status = 'inactive';`);
    this.addSql(`alter table business_registry_entry drop column source, drop column last_import_id,
      drop constraint business_registry_entry_status_check,
      add constraint business_registry_entry_status_check check (status in ('active', 'deleted'));`);
  }
}
