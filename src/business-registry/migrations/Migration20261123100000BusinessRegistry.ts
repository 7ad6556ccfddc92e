import { Migration } from '@mikro-orm/migrations';

/** The business registry that merchant signup and product orders check organisation numbers against. */
export class Migration20261123100000BusinessRegistry extends Migration {
  override name = 'Migration20261123100000BusinessRegistry';

  override up(): void {
    this.addSql(`create table business_registry_entry (
      org_number varchar(9) primary key check (org_number ~ '^[0-9]{9}$'),
      name text not null,
      kind text not null check (kind in ('main', 'sub')),
      status text not null check (status in ('active', 'deleted')),
      parent_org_number varchar(9) references business_registry_entry (org_number),
      check ((kind = 'sub') = (parent_org_number is not null))
    );`);
  }
}
