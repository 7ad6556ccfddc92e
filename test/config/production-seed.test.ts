import { testOperator } from '../../src/operator/operator.seed.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Production seeds nothing: no demo credentials, sales units or test users (DESIGN "Tenancy and auth"). */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false }, { PAYGRAPH_ENV: 'production', PAYGRAPH_TOKEN_SECRET: 'p'.repeat(40) });
});
afterAll(() => t.close());

async function count(table: string): Promise<number> {
  const [row] = await forkEm(t.app.services.orm).execute<{ n: number | string }[]>(`select count(*) as n from ${table}`);
  return Number(row!.n);
}

test('an app started with PAYGRAPH_ENV=production has no api clients, merchants, sales units or test users', async () => {
  expect(t.app.services.config.env).toBe('production');
  expect({
    api_client: await count('api_client'),
    merchant: await count('merchant'),
    sales_unit: await count('sales_unit'),
    wallet_user: await count('wallet_user'),
    partner: await count('partner'),
    partner_sales_unit: await count('partner_sales_unit'),
    psp: await count('psp'),
    psp_merchant: await count('psp_merchant'),
  }).toEqual({ api_client: 0, merchant: 0, sales_unit: 0, wallet_user: 0, partner: 0, partner_sales_unit: 0, psp: 0, psp_merchant: 0 });
});

test('the demo credentials of the test environment get no token', async () => {
  const res = await fetch(`${t.baseUrl}/accesstoken/get`, {
    method: 'POST',
    headers: { client_id: 'test-client-123456', client_secret: 'test-secret-123456', 'Ocp-Apim-Subscription-Key': 'test-key-123456' },
  });
  expect(res.status).toBe(401);
  // Nor does the test environment's operator client (issue 21): production's operator clients come from the command line.
  const operator = await fetch(`${t.baseUrl}/accesstoken/get`, {
    method: 'POST',
    headers: {
      client_id: testOperator.clientId,
      client_secret: testOperator.clientSecret,
      'Ocp-Apim-Subscription-Key': testOperator.subscriptionKey,
    },
  });
  expect(operator.status).toBe(401);
});
