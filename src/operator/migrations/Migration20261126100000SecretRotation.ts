import { Migration } from '@mikro-orm/migrations';

/** A rotated client secret keeps working beside the new one until its overlap ends (or an operator retires it). */
export class Migration20261126100000SecretRotation extends Migration {
  override name = 'Migration20261126100000SecretRotation';

  override up(): void {
    this.addSql(`alter table api_client
      add column previous_client_secret_digest char(64) null,
      add column previous_secret_retires_at timestamptz null,
      add constraint api_client_previous_secret_check
        check ((previous_client_secret_digest is null) = (previous_secret_retires_at is null));`);
  }

  override down(): void {
    this.addSql(`alter table api_client drop constraint if exists api_client_previous_secret_check,
      drop column previous_client_secret_digest, drop column previous_secret_retires_at;`);
  }
}
