import { Migration } from '@mikro-orm/migrations';

/**
 * A delivery attempt is written when the delivery is claimed, before its POST, and completed afterwards: an
 * instance that dies mid-POST leaves an attempt without an outcome (no duration) instead of no trace at all. The
 * next claim of that delivery marks it interrupted.
 */
export class Migration20261123000004WebhookAttemptAtClaim extends Migration {
  override name = 'Migration20261123000004WebhookAttemptAtClaim';

  override up(): void {
    this.addSql(`alter table webhook_delivery_attempt alter column duration_ms drop not null;`);
    // An attempt without an outcome has no response either.
    this.addSql(`alter table webhook_delivery_attempt add constraint webhook_delivery_attempt_outcome_check
      check (duration_ms is not null or status_code is null);`);
  }

  override down(): void {
    this.addSql(`alter table webhook_delivery_attempt drop constraint if exists webhook_delivery_attempt_outcome_check;`);
    this.addSql(`delete from webhook_delivery_attempt where duration_ms is null;`);
    this.addSql(`alter table webhook_delivery_attempt alter column duration_ms set not null;`);
  }
}
