import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** issue 22: the payments search in the graph: every criterion on the server, any age, keyset-paged newest first. */
let t: TestApp;
let merchant: MerchantClient;
const MINUTE_MS = 60_000;

beforeAll(async () => {
  // No flush of the API quality counts either: its statements would land in a page's count.
  t = await startTestApp({ runJobs: false, flushIntervalMs: 3_600_000 });
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const SEARCH = `query Search($first: Int, $after: String, $filter: PaymentFilter) {
  payments(first: $first, after: $after, filter: $filter) {
    edges { node { reference state amount { value } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

async function search(filter: Record<string, unknown>, first = 20, after?: string): Promise<any> {
  const res = await merchant.graphql(SEARCH, { filter, first, after });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.payments;
}
const references = (page: any) => page.edges.map((e: any) => e.node.reference);

test('a reference prefix finds a payment older than any page, and LIKE characters in it match only themselves', async () => {
  const prefix = newReference('old').slice(0, 20);
  const old = `${prefix}-a`;
  expect((await merchant.createPayment({ reference: old })).status).toBe(201);
  t.clock.advance(MINUTE_MS);
  for (let i = 0; i < 3; i++) expect((await merchant.createPayment()).status).toBe(201);
  expect(references(await search({ referencePrefix: prefix }))).toEqual([old]);
  expect(references(await search({ referencePrefix: `${prefix}%` }))).toEqual([]);
  expect(references(await search({ referencePrefix: prefix.replace(/-/g, '_') }))).toEqual([]);
});

test('outcomes: captured, refunded, cancelled and expired, one per payment, cancelled never counted as reserved', async () => {
  const tag = newReference('outcome').slice(0, 24);
  const captured = await merchant.authorizedPayment(5_000, { reference: `${tag}-cap` });
  expect((await merchant.modify(captured, 'capture', 2_000)).status).toBe(200);
  const refunded = await merchant.authorizedPayment(5_000, { reference: `${tag}-ref` });
  expect((await merchant.modify(refunded, 'capture', 5_000)).status).toBe(200);
  expect((await merchant.modify(refunded, 'refund', 1_000)).status).toBe(200);
  const cancelled = await merchant.authorizedPayment(5_000, { reference: `${tag}-can` });
  expect((await merchant.modify(cancelled, 'cancel')).status).toBe(200);
  const reserved = await merchant.authorizedPayment(5_000, { reference: `${tag}-res` });
  const expiring = `${tag}-exp`;
  expect((await merchant.createPayment({ reference: expiring })).status).toBe(201);

  const of = async (outcome: string[]) => references(await search({ referencePrefix: tag, outcome })).sort();
  expect(await of(['CAPTURED'])).toEqual([captured]);
  expect(await of(['REFUNDED'])).toEqual([refunded]);
  expect(await of(['CANCELLED'])).toEqual([cancelled]);
  expect(await of(['RESERVED'])).toEqual([reserved]);
  expect(await of(['PENDING'])).toEqual([expiring]);
  expect(await of(['CAPTURED', 'REFUNDED'])).toEqual([captured, refunded].sort());

  const totals = `{ paymentTotals { asOf byOutcome { outcome count } byState { state count } } }`;
  const before = (await merchant.graphql(totals)).body.data.paymentTotals;
  const count = (list: any[], outcome: string) => list.find((o) => o.outcome === outcome)?.count ?? 0;
  expect(count(before.byOutcome, 'CANCELLED')).toBeGreaterThanOrEqual(1);

  // Past the expiry of a web-redirect payment (FACTS: 10 minutes), the waiting payment counts as expired.
  t.clock.advance(11 * MINUTE_MS);
  expect(await of(['EXPIRED'])).toEqual([expiring]);
  expect(await of(['PENDING'])).toEqual([]);
});

test('amount and date ranges, and a page that goes on from its cursor with the same filter only', async () => {
  const tag = newReference('range').slice(0, 24);
  const start = t.clock.now();
  const made: string[] = [];
  for (const value of [1_000, 2_000, 3_000, 4_000]) {
    const reference = `${tag}-${value}`;
    expect((await merchant.createPayment({ reference, amount: { currency: 'NOK', value } })).status).toBe(201);
    made.push(reference);
    t.clock.advance(MINUTE_MS);
  }
  expect(references(await search({ referencePrefix: tag, amountFrom: 2_000, amountTo: 3_000 }))).toEqual([made[2], made[1]]);
  const window = {
    createdFrom: new Date(start.getTime() + MINUTE_MS).toISOString(),
    createdBefore: new Date(start.getTime() + 3 * MINUTE_MS).toISOString(),
  };
  expect(references(await search({ referencePrefix: tag, ...window }))).toEqual([made[2], made[1]]);

  const first = await search({ referencePrefix: tag }, 3);
  expect(references(first)).toEqual([made[3], made[2], made[1]]);
  expect(first.pageInfo.hasNextPage).toBe(true);
  const second = await search({ referencePrefix: tag }, 3, first.pageInfo.endCursor);
  expect(references(second)).toEqual([made[0]]);
  expect(second.pageInfo.hasNextPage).toBe(false);

  const other = await merchant.graphql(SEARCH, {
    filter: { referencePrefix: tag, amountFrom: 1 },
    first: 3,
    after: first.pageInfo.endCursor,
  });
  expect(other.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
});

test('criteria that cannot be meant are refused with the field named', async () => {
  for (const [filter, field] of [
    [{ amountFrom: -1 }, 'amountFrom'],
    [{ amountFrom: 5, amountTo: 4 }, 'amountTo'],
    [{ createdFrom: '2030-01-02T00:00:00Z', createdBefore: '2030-01-01T00:00:00Z' }, 'createdBefore'],
    [{ referencePrefix: 'x'.repeat(65) }, 'referencePrefix'],
  ] as const) {
    const res = await merchant.graphql(SEARCH, { filter });
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(res.body.errors[0].extensions)).toContain(field);
  }
});

test('another merchant’s search finds none of these payments', async () => {
  const tag = newReference('mine').slice(0, 24);
  expect((await merchant.createPayment({ reference: `${tag}-1` })).status).toBe(201);
  const other = new MerchantClient(t.baseUrl, MERCHANT_B);
  const res = await other.graphql(SEARCH, { filter: { referencePrefix: tag } });
  expect(res.body.data.payments.edges).toEqual([]);
});

test('after the test clock moved days ahead, the totals and rates asked without a period still answer, by the service’s clock', async () => {
  t.clock.advance(3 * 24 * 60 * MINUTE_MS);
  const fresh = new MerchantClient(t.baseUrl);
  const reference = await fresh.authorizedPayment(1_000);
  expect((await fresh.modify(reference, 'cancel')).status).toBe(200);
  const res = await fresh.graphql(`{
    paymentTotals { since asOf byOutcome { outcome count } byState { state count } }
    paymentEventsPerMinute { minute count } }`);
  expect(res.body.errors).toBeUndefined();
  const totals = res.body.data.paymentTotals;
  expect(totals.asOf).toBe(t.clock.now().toISOString());
  expect(new Date(totals.since).getTime()).toBeLessThanOrEqual(t.clock.now().getTime());
  expect(totals.byOutcome).toEqual([{ outcome: 'CANCELLED', count: 1 }]);
  expect(res.body.data.paymentEventsPerMinute.reduce((n: number, r: any) => n + r.count, 0)).toBe(3);
});

test('a searched page costs the same statements for 1, 5 and 12 payments, with their events', async () => {
  const tag = newReference('count').slice(0, 24);
  // A client of its own: an earlier test moved the clock past the first client's token.
  const merchant = new MerchantClient(t.baseUrl);
  for (let i = 0; i < 13; i++) await merchant.authorizedPayment(1_000 + i, { reference: `${tag}-${i}` });
  const query = `query($first: Int!, $filter: PaymentFilter) { payments(first: $first, filter: $filter) {
    edges { node { reference events { edges { node { name } } } } } pageInfo { hasNextPage } } }`;
  const filter = { referencePrefix: tag, outcome: ['RESERVED'], amountFrom: 1_000, createdFrom: '2000-01-01T00:00:00Z' };
  await merchant.graphql('{ __typename }');
  const counts: number[] = [];
  for (const first of [1, 5, 12]) {
    const before = t.queries.length;
    const res = await merchant.graphql(query, { first, filter });
    expect(res.body.data.payments.edges).toHaveLength(first);
    expect(res.body.data.payments.edges[0].node.events.edges).toHaveLength(2);
    counts.push(t.queries.length - before);
  }
  expect(counts[0]).toBeGreaterThan(0);
  expect(new Set(counts).size).toBe(1);
});
