import { forkEm } from '../../src/platform/db/orm.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { eventually, PspEndpoint } from './psp-endpoint.js';
import { newIds, PSP_MSN, testPspClient } from './psp-fixture.js';

let t: TestApp;
let psp: ReturnType<typeof testPspClient>;
let endpoint: PspEndpoint;

beforeAll(async () => {
  // The jobs' tick waits an hour: each night's batch is run by nextNight (the jobs that became due), so the app does
  // not poll for time-based work through the file. Events and commits still wake the deliveries (the PSP's callback).
  t = await startTestApp({ jobIntervalMs: 3_600_000 });
  psp = testPspClient(t);
  endpoint = await new PspEndpoint().start();
});
afterAll(async () => {
  await t.close();
  await endpoint.close();
});

const call = (method: string, path: string, body?: unknown) => psp.request(method, path, body, psp.msnHeaders);

/** A PSP payment the PSP accepted (RESERVED) for `amount`. */
async function reserved(amount: number): Promise<string> {
  const ids = newIds();
  const path = `/mp/${ids.pspTransactionId}`;
  const res = await call('POST', '/psp/v3/psppayments/init', {
    ...ids,
    amount,
    currency: 'NOK',
    pspRedirectUrl: 'https://psp.example/r',
    makePaymentUrl: endpoint.url(path),
  });
  const token = new URL(res.body.vippsRedirectUrl).searchParams.get('token')!;
  await call('POST', `/psp/v3/integration-test/psppayments/${ids.pspTransactionId}/approve`, { customerPhoneNumber: '91234567', token });
  await eventually(
    async () => (await call('GET', `/psp/v3/psppayments/${ids.pspTransactionId}/details`)).body.transactionLogHistory.length === 1,
    'RESERVED',
  );
  return ids.pspTransactionId;
}

const details = async (id: string) => (await call('GET', `/psp/v3/psppayments/${id}/details`)).body;
const update = (transactions: unknown[]) => call('POST', '/psp/v3/psppayments/updatestatus', { transactions });

/**
 * Moves the test clock past the next nightly cut-off (02:00 UTC), runs the jobs that became due, and waits for that
 * night's batch to have finished.
 */
async function nextNight(): Promise<void> {
  // The batch goes by the time of the PSP's sales unit (its test clock, which the graph's advance may have moved).
  const now = new Date((await psp.graphql('{ testClock { now } }', {}, psp.msnHeaders)).body.data.testClock.now);
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 2, 0, 1));
  if (next <= now) next.setUTCDate(next.getUTCDate() + 1);
  t.clock.advance(next.getTime() - now.getTime());
  await t.app.services.runJobsNow!();
  const period = new Date(next.getTime() - 1000).toISOString().slice(0, 10);
  await eventually(async () => {
    const rows = await forkEm(t.app.services.orm).execute<{ finished_at: unknown }[]>(
      'select finished_at from psp_batch_run where msn = ? and period = ?',
      [PSP_MSN, period],
    );
    return rows[0]?.finished_at != null;
  }, 'the nightly batch');
  // Access tokens last an hour of the test clock: the PSP gets a new one, as a real PSP would the next day.
  psp = testPspClient(t);
}

test('a valid update answers 9000 SUCCESS at once and changes nothing until the nightly batch applies it', async () => {
  const id = await reserved(10_000);
  const res = await update([
    { pspTransactionId: id, status: 'CAPTURED', amount: 4_000, currency: 'NOK', paymentText: 'Part 1', operationStatus: 'SUCCESS' },
  ]);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ responseInfo: { responseCode: '9000', responseMessage: 'SUCCESS' } });
  expect((await details(id)).transactionSummary.capturedAmount).toBe(0);
  await nextNight();
  expect((await details(id)).transactionSummary).toEqual({
    capturedAmount: 4_000,
    remainingAmountToCapture: 6_000,
    refundedAmount: 0,
    remainingAmountToRefund: 4_000,
  });
  expect((await details(id)).transactionLogHistory.at(-1)).toMatchObject({
    operation: 'CAPTURED',
    amount: 4_000,
    paymentText: 'Part 1',
    operationSuccess: true,
  });
});

test('updates apply in order of arrival with the money rules; a breaking one is recorded as failed, not applied', async () => {
  const id = await reserved(10_000);
  await update([
    { pspTransactionId: id, status: 'REFUNDED', amount: 1_000 },
    { pspTransactionId: id, status: 'CAPTURE', amount: 7_000 },
    { pspTransactionId: id, status: 'CAPTURED', amount: 4_000 },
    { pspTransactionId: id, status: 'REFUNDED', amount: 2_000 },
    { pspTransactionId: id, status: 'REFUNDED', amount: 6_000 },
    { pspTransactionId: id, status: 'CANCELLED', amount: 0 },
  ]);
  await nextNight();
  const d = await details(id);
  expect(d.transactionLogHistory.slice(1).map((e: any) => [e.operation, e.amount, e.operationSuccess])).toEqual([
    ['REFUNDED', 1_000, false],
    ['CAPTURED', 7_000, true],
    ['CAPTURED', 4_000, false],
    ['REFUNDED', 2_000, true],
    ['REFUNDED', 6_000, false],
    ['CANCELLED', 3_000, true],
  ]);
  expect(d.transactionSummary).toEqual({
    capturedAmount: 7_000,
    remainingAmountToCapture: 0,
    refundedAmount: 2_000,
    remainingAmountToRefund: 5_000,
  });
});

test('the batch is idempotent: a later night applies nothing twice', async () => {
  const id = await reserved(5_000);
  await update([{ pspTransactionId: id, status: 'CAPTURED', amount: 5_000 }]);
  await nextNight();
  await nextNight();
  expect((await details(id)).transactionLogHistory).toHaveLength(2);
  expect((await details(id)).transactionSummary.capturedAmount).toBe(5_000);
});

test('a FAILED operation status and REJECT are logged as failed operations without moving money', async () => {
  const id = await reserved(5_000);
  await update([
    { pspTransactionId: id, status: 'CAPTURED', amount: 1_000, operationStatus: 'FAILED' },
    { pspTransactionId: id, status: 'REJECT', amount: 5_000 },
  ]);
  await nextNight();
  const d = await details(id);
  expect(d.transactionLogHistory.slice(1).map((e: any) => [e.operation, e.operationSuccess])).toEqual([
    ['CAPTURED', false],
    ['RESERVED', false],
  ]);
  expect(d.transactionSummary.capturedAmount).toBe(0);
});

test('invalid transactions: 400 with one PSP error per transaction, and nothing is queued', async () => {
  const id = await reserved(5_000);
  const res = await update([
    { pspTransactionId: id, status: 'CAPTURED', amount: 100 },
    { pspTransactionId: 'nosuchtransaction', status: 'CAPTURED', amount: 100 },
  ]);
  expect(res.status).toBe(400);
  expect(res.body).toEqual([
    { errorCode: '42', errorMessage: expect.stringContaining('nosuchtransaction'), contextId: expect.any(String) },
  ]);
  const bad = await update([{ pspTransactionId: id, status: 'SETTLED', amount: -1 }]);
  expect(bad.status).toBe(400);
  expect(bad.body.map((e: any) => e.errorCode)).toEqual(['51', '51']);
  expect((await call('POST', '/psp/v3/psppayments/updatestatus', { transactions: [] })).status).toBe(400);
  await nextNight();
  expect((await details(id)).transactionLogHistory).toHaveLength(1);
});

test("the graph's test clock runs the night's batch before it answers: a queued update is applied when advanceTestClock returns", async () => {
  const id = await reserved(5_000);
  const res = await update([
    { pspTransactionId: id, status: 'CAPTURED', amount: 2_000, currency: 'NOK', paymentText: 'Clock', operationStatus: 'SUCCESS' },
  ]);
  expect(res.body.responseInfo.responseCode).toBe('9000');
  // The PSP moves the clock of the sales unit it acts for (its Merchant-Serial-Number), whose payment this is.
  const moved = await psp.graphql(
    'mutation { advanceTestClock(input: { seconds: 90000 }) { testClock { merchantSerialNumber now } userErrors { code } } }',
    {},
    psp.msnHeaders,
  );
  expect(moved.body.data.advanceTestClock.userErrors).toEqual([]);
  expect(moved.body.data.advanceTestClock.testClock.merchantSerialNumber).toBe(psp.msnHeaders['Merchant-Serial-Number']);
  // No waiting: the advance ran every job that became due (this night's batch among them) before answering.
  psp = testPspClient(t);
  expect((await details(id)).transactionSummary.capturedAmount).toBe(2_000);
});
