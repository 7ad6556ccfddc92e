import { Migration } from '@mikro-orm/migrations';

/**
 * An idempotency key of a modification is scoped to the object it acts on too (a capture of one payment and of
 * another are two requests, whatever their keys), as the platform scopes them; a create has no object (`''`).
 */
export class Migration20261126000008IdempotencyTarget extends Migration {
  override name = 'Migration20261126000008IdempotencyTarget';

  override up(): void {
    this.addSql(`alter table idempotency_record add column target varchar(100) not null default '';`);
    this.addSql(`alter table idempotency_record drop constraint idempotency_record_scope_unique;`);
    this.addSql(`alter table idempotency_record add constraint idempotency_record_scope_unique
      unique (client_id, msn, operation, target, idempotency_key);`);
  }

  override down(): void {
    this.addSql(`delete from idempotency_record where target <> '';`);
    this.addSql(`alter table idempotency_record drop constraint idempotency_record_scope_unique;`);
    this.addSql(`alter table idempotency_record add constraint idempotency_record_scope_unique
      unique (client_id, msn, operation, idempotency_key);`);
    this.addSql(`alter table idempotency_record drop column target;`);
  }
}
