import { forkEm } from '../../src/platform/db/orm.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Production seeds no wallet users, so no profiles, and nobody can consent on a landing page. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false }, { PAYGRAPH_ENV: 'production', PAYGRAPH_TOKEN_SECRET: 'p'.repeat(40) });
});
afterAll(() => t.close());

test('an app started with PAYGRAPH_ENV=production has no user profiles, bank accounts or consents', async () => {
  const em = forkEm(t.app.services.orm);
  const counts: Record<string, number> = {};
  for (const table of ['user_profile', 'user_bank_account', 'user_consent']) {
    const [row] = await em.execute<{ n: number | string }[]>(`select count(*) as n from ${table}`);
    counts[table] = Number(row!.n);
  }
  expect(counts).toEqual({ user_profile: 0, user_bank_account: 0, user_consent: 0 });
});
