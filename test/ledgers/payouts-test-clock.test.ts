import { addBusinessDays, addDays, osloDate, osloMidnight } from '../../src/ledgers/business-days.js';
import { MerchantClient } from '../support/merchant-client.js';
import { startProductionApp, startTestApp, type TestApp } from '../support/test-app.js';

/** Payouts closing each ledger date, moved through time by the test clock. */
let t: TestApp;
let merchant: MerchantClient;
let ledgerId: string;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  merchant = new MerchantClient(t.baseUrl);
  const res = await merchant.raw('GET', '/settlement/v1/ledgers', undefined, { Authorization: `Bearer ${await merchant.accessToken()}` });
  ledgerId = res.body.items[0].ledgerId;
}, 120_000);
afterAll(() => t.close());

const ADVANCE = `mutation($input: AdvanceTestClockInput!) { advanceTestClock(input: $input) { testClock { now } userErrors { code field message } } }`;

async function advance(input: Record<string, unknown>) {
  const res = await merchant.graphql(ADVANCE, { input });
  expect(res.body.errors).toBeUndefined();
  // Access tokens live an hour of the service's clock: after a jump, the client fetches a new one, as any would.
  merchant = new MerchantClient(t.baseUrl);
  return res.body.data.advanceTestClock;
}
/** Moves the clock to 10:00 in Oslo on the date. */
async function advanceTo(date: string) {
  const result = await advance({ until: new Date(osloMidnight(date).getTime() + 10 * 3_600_000).toISOString() });
  expect(result.userErrors).toEqual([]);
}
/** The time of the merchant's sales unit (123456): its test clock. */
async function unitNow(): Promise<Date> {
  return new Date((await merchant.graphql('{ testClock { now } }')).body.data.testClock.now);
}
const today = async () => osloDate(await unitNow());

async function rows(query = '') {
  const res = await merchant.raw('GET', `/report/v1/ledgertransactions?ledgerId=${ledgerId}${query}`, undefined, {
    Authorization: `Bearer ${await merchant.accessToken()}`,
  });
  expect(res.status).toBe(200);
  return res.body.items as {
    transactionType: string;
    ledgerAmount: number;
    grossAmount: number;
    fee: number;
    ledgerDate: string;
    orderId: string;
  }[];
}
async function ledger() {
  const res = await merchant.graphql(`query($id: String!) { ledger(ledgerId: $id) { firstPayout lastPayout } }`, { id: ledgerId });
  return res.body.data.ledger;
}
async function capture(value: number): Promise<string> {
  const reference = await merchant.authorizedPayment(value);
  expect((await merchant.modify(reference, 'capture', value)).status).toBe(200);
  return reference;
}
const sum = (list: { ledgerAmount: number }[]) => list.reduce((total, row) => total + row.ledgerAmount, 0);

test("testClock shows the sales unit's clock; the advance moves it forward only, by exactly what was asked", async () => {
  const before = (await merchant.graphql('{ testClock { now } }')).body.data.testClock.now;
  expect(before).toBe(t.clock.now().toISOString());
  const moved = await advance({ seconds: 60 });
  expect(moved.userErrors).toEqual([]);
  expect(Date.parse(moved.testClock.now) - Date.parse(before)).toBe(60_000);
  for (const input of [{ seconds: 0 }, { seconds: -5 }, { until: before }, {}, { seconds: 5, until: '2099-01-01T00:00:00Z' }]) {
    const refused = await advance(input);
    expect(refused.testClock).toBeNull();
    expect(refused.userErrors[0].code).toBe('VALIDATION_FAILED');
  }
  expect((await merchant.graphql('{ testClock { now } }')).body.data.testClock.now).toBe(moved.testClock.now);
});

test('an advance runs the jobs that became due: an unpaid payment expires', async () => {
  const created = await merchant.createPayment();
  const reference = created.body.reference;
  expect((await advance({ seconds: 11 * 60 })).userErrors).toEqual([]);
  // Read from the event log: the expiry job recorded the event while the clock moved, before the mutation answered.
  const events = await merchant.events(reference);
  expect(events.body.map((e: { name: string }) => e.name)).toEqual(['CREATED', 'EXPIRED']);
});

test('payouts: positive balances paid out with sequential ids, zero and negative ones carried forward', async () => {
  const day0 = await today();
  const pay1 = await capture(10_000); // fee 175 + 100 = 275
  await advanceTo(addDays(day0, 1));
  let all = await rows();
  const payout1 = all.filter((r) => r.transactionType === 'payout');
  expect(payout1).toEqual([
    expect.objectContaining({ ledgerAmount: -9_725, grossAmount: -9_725, fee: 0, ledgerDate: day0, orderId: '2000001' }),
  ]);
  expect(await ledger()).toEqual({ firstPayout: '2000001', lastPayout: '2000001' });
  expect(sum(await rows('&inPayout=2000001'))).toBe(0);

  // Refund all that was paid out: deducted two business days later.
  const day1 = await today();
  expect((await merchant.modify(pay1, 'refund', 9_725)).status).toBe(200);
  const refundDate = addBusinessDays(day1, 2);
  await advanceTo(refundDate);
  expect((await rows()).filter((r) => r.transactionType === 'payout')).toHaveLength(1);
  // A capture the same ledger date as the refund: the date's balance is zero, so no payout.
  await capture(10_000);
  await advanceTo(addDays(refundDate, 1));
  expect((await ledger()).lastPayout).toBe('2000001');

  // A further refund makes the balance negative: nothing is paid out, the balance carries forward.
  const pay3 = await capture(6_000); // fee 105 + 100 = 205 -> 5795
  await advanceTo(addDays(await today(), 1));
  expect((await ledger()).lastPayout).toBe('2000002');
  // The rows of the zero-balance date stayed open and ride along in the next payout.
  expect((await rows('&inPayout=2000002')).map((r) => r.ledgerAmount)).toEqual([-9_725, 9_725, 5_795, -5_795]);
  expect((await merchant.modify(pay3, 'refund', 6_000)).status).toBe(200);
  const negativeDate = addBusinessDays(await today(), 2);
  await advanceTo(addDays(negativeDate, 1));
  expect((await ledger()).lastPayout).toBe('2000002');
  expect(sum(await rows('&sincePayout=2000002'))).toBe(-6_000 + 0);

  // The next capture first covers the carried negative balance, then pays out the rest.
  await capture(20_000); // fee 350 + 100 = 450 -> 19550
  await advanceTo(addDays(await today(), 1));
  expect(await ledger()).toEqual({ firstPayout: '2000001', lastPayout: '2000003' });
  const third = await rows('&inPayout=2000003');
  expect(third.map((r) => r.transactionType)).toEqual(['refund', 'capture', 'payout']);
  expect(third[2]!.ledgerAmount).toBe(-(19_550 - 6_000));
  expect(sum(third)).toBe(0);
  all = await rows();
  const lastDate = await today();
  expect(all.filter((r) => r.transactionType !== 'payout').every((r) => r.ledgerDate <= lastDate)).toBe(true);
  expect(sum(all)).toBe(0);
});

test('closing is idempotent and safe when several runs race', async () => {
  const before = await rows();
  await capture(1_000);
  t.clock.advance(2 * 86_400_000);
  merchant = new MerchantClient(t.baseUrl);
  await Promise.all([t.app.services.runJobsNow!(), t.app.services.runJobsNow!(), t.app.services.runJobsNow!()]);
  await t.app.services.runJobsNow!();
  const after = await rows();
  const newPayouts =
    after.filter((r) => r.transactionType === 'payout').length - before.filter((r) => r.transactionType === 'payout').length;
  expect(newPayouts).toBe(1);
  expect(sum(after)).toBe(0);
});

test('a refund made through the API on 23 December is deducted on 28 December', async () => {
  const reference = await capture(5_000);
  const day = await today();
  const year = Number(day.slice(0, 4));
  const target = `${day < `${year}-12-23` ? year : year + 1}-12-23`;
  await advanceTo(target);
  expect((await merchant.modify(reference, 'refund', 1_000)).status).toBe(200);
  const refund = (await rows()).find((r) => r.orderId === reference && r.transactionType === 'refund');
  expect(refund?.ledgerDate).toBe(addBusinessDays(target, 2));
  expect(refund?.ledgerDate.slice(5)).toMatch(/^12-2[789]$/);
});

test('a capture at 00:30 in Oslo, still the day before in UTC, is on the Oslo date', async () => {
  const date = addDays(await today(), 2);
  const result = await advance({ until: new Date(osloMidnight(date).getTime() + 30 * 60_000).toISOString() });
  expect(result.userErrors).toEqual([]);
  // Oslo is one or two hours ahead of UTC: in UTC it is still the evening before.
  expect((await unitNow()).toISOString().slice(0, 10)).toBe(addDays(date, -1));
  const reference = await capture(5_000);
  expect((await rows(`&ledgerDate=${date}`)).filter((r) => r.orderId === reference)).toEqual([
    expect.objectContaining({ transactionType: 'capture', ledgerDate: date, grossAmount: 5_000 }),
  ]);
});

test('the test clock is refused in production', async () => {
  const production = await startProductionApp();
  try {
    const client = new MerchantClient(production.baseUrl);
    const res = await client.graphql(ADVANCE, { input: { seconds: 60 } });
    expect(res.body.data.advanceTestClock).toEqual({
      testClock: null,
      userErrors: [{ code: 'FORBIDDEN_IN_PRODUCTION', field: null, message: expect.any(String) }],
    });
  } finally {
    await production.close();
  }
});
