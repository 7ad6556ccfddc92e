import { randomUUID } from 'node:crypto';
import { forkEm, type Orm } from '../../src/platform/db/orm.js';
import { openBeforeMigration } from '../support/database-before-migration.js';
import type { TestDatabase } from '../support/test-database.js';

/**
 * Issue 35: the wallet's users move from `test_user` to `wallet_user`. The release before the rename keeps serving
 * during a rolling upgrade: every statement it sends to `test_user` reaches the same rows through the view the
 * migration leaves under the old name (expand; the view is dropped by a later release's contract step).
 */
const UNDER_TEST = 'Migration20261205060000WalletUser';
const BEFORE = 'Migration20261205050000TrustedDocuments';

let db: TestDatabase;
let orm: Orm;
const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) => forkEm(orm).execute<T[]>(query, params);

beforeAll(async () => {
  ({ db, orm } = await openBeforeMigration(UNDER_TEST, BEFORE));
});
afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

test("the rows move to wallet_user, and the old release's statements on test_user still read and write them", async () => {
  const kari = randomUUID();
  await sql(`insert into test_user (phone_number, sub, approved_payments_count) values ('4791230001', ?, 2)`, [kari]);

  await orm.migrator.up({ to: UNDER_TEST });

  expect(await sql(`select phone_number, sub, approved_payments_count from wallet_user`)).toEqual([
    { phone_number: '4791230001', sub: kari, approved_payments_count: 2 },
  ]);
  // The old release: a wallet app's first approval of a user (twice: the second does nothing), the locked read and
  // the count of an approval, the seed's upsert.
  const ola = randomUUID();
  for (const sub of [ola, randomUUID()]) {
    await sql(`insert into test_user (phone_number, sub, approved_payments_count) values ('4791230002', ?, 0) on conflict do nothing`, [
      sub,
    ]);
  }
  await sql(
    `insert into "test_user" ("phone_number", "sub", "approved_payments_count") values ('4791230001', ?, 0) on conflict ("phone_number") do nothing`,
    [randomUUID()],
  );
  const em = forkEm(orm);
  await em.transactional(async (tx) => {
    expect(await tx.execute(`select approved_payments_count from test_user where phone_number = '4791230001' for update`)).toEqual([
      { approved_payments_count: 2 },
    ]);
    await tx.execute(`update test_user set approved_payments_count = approved_payments_count + 1 where phone_number = '4791230001'`);
  });
  expect(await sql(`select phone_number, sub, approved_payments_count from wallet_user order by phone_number`)).toEqual([
    { phone_number: '4791230001', sub: kari, approved_payments_count: 3 },
    { phone_number: '4791230002', sub: ola, approved_payments_count: 0 },
  ]);
  // The constraints came along, under the new name.
  await expect(sql(`update test_user set approved_payments_count = -1 where phone_number = '4791230002'`)).rejects.toThrow(
    /wallet_user_approved_payments_count_check/,
  );
});
