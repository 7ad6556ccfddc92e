import { Migration } from '@mikro-orm/migrations';

/**
 * The W3C `traceparent` of the request that recorded an event or a callback (null without tracing): its webhook
 * deliveries and the callback go out in that trace, so one trace id leads from a request to what it caused.
 */
export class Migration20261126100200TraceParent extends Migration {
  override name = 'Migration20261126100200TraceParent';

  override up(): void {
    this.addSql(`alter table domain_event add column trace_parent varchar(55) null;`);
    this.addSql(`alter table outbound_callback add column trace_parent varchar(55) null;`);
  }

  override down(): void {
    this.addSql(`alter table domain_event drop column trace_parent;`);
    this.addSql(`alter table outbound_callback drop column trace_parent;`);
  }
}
