import { loadConfig, type RateLimitSettings } from '../../src/config.js';
import { onPostgres } from '../support/test-database.js';
import { MERCHANT_A, MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const describeOnPostgres = onPostgres ? describe : describe.skip;

/** With the PostgreSQL store, two instances of one database spend one quota (the default, memory, is per instance). */
describeOnPostgres('rate limits shared through PostgreSQL', () => {
  const rateLimits: RateLimitSettings = { ...loadConfig({}).rateLimits, client: { points: 4, windowSeconds: 60 }, store: 'postgres' };
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await startTestApp({ rateLimits });
    second = await startTestApp({ rateLimits, databaseUrl: first.app.services.config.databaseUrl });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  test('requests of one client through either instance count against one quota', async () => {
    const viaFirst = new MerchantClient(first.baseUrl, MERCHANT_A);
    const viaSecond = new MerchantClient(second.baseUrl, MERCHANT_A);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await viaFirst.getPayment('no-such-reference-1')).status);
      statuses.push((await viaSecond.getPayment('no-such-reference-1')).status);
    }
    // 4 points in all: the fifth and sixth request are refused, whichever instance answers them.
    expect(statuses).toEqual([404, 404, 404, 404, 429, 429]);
  });
});
