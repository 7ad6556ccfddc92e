import { forkEm } from '../../src/platform/db/orm.js';
import { PspClient } from '../support/psp-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { onPostgres } from '../support/test-database.js';
import { eventually, PspEndpoint } from './psp-endpoint.js';
import { newIds } from './psp-fixture.js';

/**
 * The make-payment callback is recorded in the approval's transaction and sent from the outbox: an instance that
 * stops after the approval and before sending it loses nothing, the next instance sends it. Two instances share one
 * database only on a PostgreSQL server.
 */
const onServer = onPostgres ? test : test.skip;

let first: TestApp;
let endpoint: PspEndpoint;
beforeAll(async () => {
  // The first instance runs no jobs: it approves, and stops before any callback goes out.
  first = await startTestApp({ runJobs: false });
  endpoint = await new PspEndpoint().start();
});
afterAll(async () => {
  await endpoint.close();
  await first.close();
});

onServer('a callback recorded before a restart is sent by the next instance, and its answer settles the payment', async () => {
  const psp = new PspClient(first.baseUrl);
  const msn = { 'Merchant-Serial-Number': '112233' };
  const ids = newIds();
  const res = await psp.request(
    'POST',
    '/psp/v3/psppayments/init',
    {
      ...ids,
      amount: 2_500,
      currency: 'NOK',
      pspRedirectUrl: 'https://psp.example/r',
      makePaymentUrl: endpoint.url('/restart'),
      makePaymentToken: 'tok',
    },
    msn,
  );
  const token = new URL(res.body.vippsRedirectUrl).searchParams.get('token')!;
  const approved = await psp.request(
    'POST',
    `/psp/v3/integration-test/psppayments/${ids.pspTransactionId}/approve`,
    { customerPhoneNumber: '91234567', token },
    msn,
  );
  expect(approved.status).toBe(200);
  const pending = await forkEm(first.app.services.orm).execute<{ status: string }[]>(
    `select status from delivery where kind = 'psp.make-payment' and url = ?`,
    [endpoint.url('/restart')],
  );
  expect(pending).toEqual([{ status: 'pending' }]);
  expect(endpoint.at('/restart')).toEqual([]);

  const second = await startTestApp({ databaseUrl: first.app.services.config.databaseUrl });
  try {
    await eventually(() => endpoint.at('/restart').length === 1, 'the callback from the next instance');
    expect(endpoint.at('/restart')[0]!.authorization).toBe('tok');
    const details = async () =>
      (await new PspClient(second.baseUrl).request('GET', `/psp/v3/psppayments/${ids.pspTransactionId}/details`, undefined, msn)).body;
    await eventually(async () => (await details()).transactionLogHistory.length === 1, 'RESERVED');
    expect((await details()).transactionLogHistory[0]).toMatchObject({ operation: 'RESERVED', operationSuccess: true });
  } finally {
    await second.close();
  }
});
