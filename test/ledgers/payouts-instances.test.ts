import { MerchantClient } from '../support/merchant-client.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// issue 13 point 2: the payout job is safe on several instances. They coordinate through the ledger's row lock on one
// PostgreSQL database; PGlite is one process's database.
const describeOnPostgres = onPostgres ? describe : describe.skip;

describeOnPostgres('payouts on two instances of one database', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await startTestApp({ runJobs: false });
    second = await startTestApp({ runJobs: false, databaseUrl: first.app.services.config.databaseUrl });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  test('each ledger date is closed once, however many runs of the job race on the two instances', async () => {
    const jobs = [first, second].map((instance) => instance.app.services.runJobsNow!);
    for (let day = 0; day < 3; day++) {
      // A capture of 10000 each day, on one instance or the other; then the day ends and both run the jobs, twice.
      const merchant = new MerchantClient([first, second][day % 2]!.baseUrl);
      const reference = await merchant.authorizedPayment(10_000);
      expect((await merchant.modify(reference, 'capture', 10_000)).status).toBe(200);
      for (const instance of [first, second]) instance.clock.advance(86_400_000);
      await Promise.all([...jobs, ...jobs].map((run) => run()));
    }
    // Tokens live an hour of the service's clock: a new client after the days went by.
    const reader = new MerchantClient(second.baseUrl);
    const auth = { Authorization: `Bearer ${await reader.accessToken()}` };
    const ledgerId = (await reader.raw('GET', '/settlement/v1/ledgers', undefined, auth)).body.items[0].ledgerId;
    const rows = (await reader.raw('GET', `/report/v1/ledgertransactions?ledgerId=${ledgerId}`, undefined, auth)).body.items as {
      transactionType: string;
      ledgerAmount: number;
      orderId: string;
    }[];
    // Each day's capture less its fee (1.75 % and 1.00 NOK) paid out once, with payout ids in sequence.
    expect(rows.filter((r) => r.transactionType === 'payout')).toEqual(
      ['2000001', '2000002', '2000003'].map((orderId) => expect.objectContaining({ ledgerAmount: -9_725, orderId })),
    );
    expect(rows.reduce((sum, r) => sum + r.ledgerAmount, 0)).toBe(0);
  });
});
