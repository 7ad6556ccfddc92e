import { Migration } from '@mikro-orm/migrations';

/**
 * Where the user gave a consent: in the wallet (the landing page's consent card) or through force approve, which
 * stands for the test user approving in the app, consent screen included (issue 19). Earlier consents were all
 * given in the wallet.
 */
export class Migration20261126140000ConsentGivenThrough extends Migration {
  override name = 'Migration20261126140000ConsentGivenThrough';

  override up(): void {
    this.addSql(
      `alter table user_consent add column given_through text not null default 'wallet' check (given_through in ('wallet', 'force-approve'));`,
    );
  }

  override down(): void {
    this.addSql(`alter table user_consent drop column given_through;`);
  }
}
