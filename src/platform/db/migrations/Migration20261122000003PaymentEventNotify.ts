import { Migration } from '@mikro-orm/migrations';

/**
 * Announces every payment event on the `payment_event` channel with its id. PostgreSQL delivers a NOTIFY only
 * when the inserting transaction commits, so listeners (the subscription bus on every instance) never hear of
 * a rolled-back change. The id alone travels (the payload limit is 8 kB); listeners read the row.
 */
export class Migration20261122000003PaymentEventNotify extends Migration {
  override name = 'Migration20261122000003PaymentEventNotify';

  override up(): void {
    this.addSql(`
      create function payment_event_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('payment_event', new.id::text);
        return null;
      end;
      $$;`);
    this.addSql(`
      create trigger payment_event_notify after insert on payment_event
        for each row execute function payment_event_notify();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists payment_event_notify on payment_event;`);
    this.addSql(`drop function if exists payment_event_notify();`);
  }
}
