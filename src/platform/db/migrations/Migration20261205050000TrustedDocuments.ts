import { Migration } from '@mikro-orm/migrations';

/** Trusted documents (issue 37): the GraphQL documents a deployment may require every operation to be. */
export class Migration20261205050000TrustedDocuments extends Migration {
  override name = 'Migration20261205050000TrustedDocuments';

  override up(): void {
    this.addSql(`create table if not exists trusted_document (
      id text primary key check (length(id) between 1 and 200),
      body text not null,
      operation_name text null,
      origin text not null check (origin in ('dashboard', 'manifest')),
      registered_at timestamptz not null
    );`);
  }

  override down(): void {
    this.addSql('drop table if exists trusted_document;');
  }
}
