import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let owner: MerchantClient;
let other: MerchantClient;
const HOUR_MS = 60 * 60 * 1000;

beforeAll(async () => {
  // Nothing here is time-based work: the jobs' tick waits an hour, so an idle app's ticks cost no CPU in this worker.
  // Events and commits still wake the webhook deliveries.
  t = await startTestApp({ jobIntervalMs: 3_600_000 });
  owner = new MerchantClient(t.baseUrl);
  other = new MerchantClient(t.baseUrl, MERCHANT_B);
});
afterAll(() => t.close());

const since = () => new Date(t.clock.now().getTime() - HOUR_MS).toISOString();

async function data(client: MerchantClient, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await client.graphql(query, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

test('salesUnits lists the sales units the caller may act for', async () => {
  expect((await data(owner, '{ salesUnits { msn name } }')).salesUnits).toEqual([{ msn: '123456', name: 'Test Shop Online' }]);
  expect((await data(other, '{ salesUnits { msn } }')).salesUnits).toEqual([{ msn: '654321' }]);
});

test('paymentTotals counts payments by state and sums captures and refunds, for the caller only', async () => {
  const query = `query($since: DateTime!) { paymentTotals(since: $since) {
    byState { state count } captured { value currency } refunded { value currency } } }`;
  const before = (await data(owner, query, { since: since() })).paymentTotals;
  const reference = await owner.authorizedPayment(10_000);
  expect((await owner.modify(reference, 'capture', 7_000)).status).toBe(200);
  expect((await owner.modify(reference, 'refund', 1_500)).status).toBe(200);
  expect((await owner.createPayment()).status).toBe(201);
  // Another merchant's activity counts for it alone.
  const others = await other.authorizedPayment(5_000);
  expect((await other.modify(others, 'capture', 5_000)).status).toBe(200);

  const after = (await data(owner, query, { since: since() })).paymentTotals;
  const count = (totals: any, state: string) => totals.byState.find((s: any) => s.state === state)?.count ?? 0;
  const sum = (list: any[]) => list.find((m) => m.currency === 'NOK')?.value ?? 0;
  expect(count(after, 'AUTHORIZED') - count(before, 'AUTHORIZED')).toBe(1);
  expect(count(after, 'CREATED') - count(before, 'CREATED')).toBe(1);
  expect(sum(after.captured) - sum(before.captured)).toBe(7_000);
  expect(sum(after.refunded) - sum(before.refunded)).toBe(1_500);
});

test('paymentEventsPerMinute counts the caller’s events per minute', async () => {
  const query = 'query($since: DateTime!) { paymentEventsPerMinute(since: $since) { minute count } }';
  const total = async () =>
    (await data(owner, query, { since: since() })).paymentEventsPerMinute.reduce((n: number, r: any) => n + r.count, 0);
  const before = await total();
  await owner.authorizedPayment(1_000);
  expect(await total()).toBe(before + 2);
  const rows = (await data(owner, query, { since: since() })).paymentEventsPerMinute;
  for (const row of rows) expect(new Date(row.minute).getUTCSeconds()).toBe(0);
});

test('a period further back than allowed is refused', async () => {
  const res = await owner.graphql('{ paymentEventsPerMinute(since: "2000-01-01T00:00:00Z") { count } }');
  expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
});

test('recentPaymentEvents pages through the caller’s events newest first, shaped like the subscription', async () => {
  const reference = await owner.authorizedPayment(2_000, { reference: newReference('recent') });
  await other.authorizedPayment(3_000);
  const query = `query($after: String) { recentPaymentEvents(first: 1, after: $after) {
    edges { cursor node { event { name reference } payment { reference state } } } pageInfo { hasNextPage endCursor } } }`;
  const first = (await data(owner, query)).recentPaymentEvents;
  expect(first.edges[0].node).toEqual({ event: { name: 'AUTHORIZED', reference }, payment: { reference, state: 'AUTHORIZED' } });
  expect(first.pageInfo.hasNextPage).toBe(true);
  const second = (await data(owner, query, { after: first.pageInfo.endCursor })).recentPaymentEvents;
  expect(second.edges[0].node.event).toEqual({ name: 'CREATED', reference });
});

test('Payment.webhookDeliveries and Webhook.failureRate show deliveries and their failed attempts', async () => {
  const registered = await owner.request('POST', '/webhooks/v1/webhooks', {
    url: 'http://127.0.0.1:9/hook',
    events: ['epayments.payment.created.v1'],
  });
  expect(registered.status).toBe(201);
  const reference = newReference('hooks');
  expect((await owner.createPayment({ reference })).status).toBe(201);
  const query = `query($reference: String!) { payment(reference: $reference) {
    webhookDeliveries { edges { node { eventName reference attempts { edges { node { state error } } } } } } } }`;
  let deliveries: any[] = [];
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    deliveries = (await data(owner, query, { reference })).payment.webhookDeliveries.edges;
    if (deliveries[0]?.node.attempts.edges.some((a: any) => a.node.state === 'COMPLETED')) break;
  }
  expect(deliveries).toHaveLength(1);
  expect(deliveries[0].node).toMatchObject({ eventName: 'CREATED', reference });
  expect(deliveries[0].node.attempts.edges[0].node).toEqual({ state: 'COMPLETED', error: 'connection refused' });

  const rates = (await data(owner, '{ webhooks { id failureRate { attempts failed rate } } }')).webhooks;
  const rate = rates.find((w: any) => w.id === registered.body.id).failureRate;
  expect(rate.attempts).toBeGreaterThanOrEqual(1);
  expect(rate.failed).toBe(rate.attempts);
  expect(rate.rate).toBe(1);
  // Another merchant sees neither the payment nor its deliveries.
  expect((await data(other, query, { reference })).payment).toBeNull();
});

test('Payment.order shows the order sent with the payment, and null without one', async () => {
  const reference = newReference('order');
  const receipt = {
    orderLines: [
      {
        name: 'Socks',
        id: 'sku-1',
        totalAmount: 8_000,
        totalAmountExcludingTax: 6_400,
        totalTaxAmount: 1_600,
        taxPercentage: 25,
        unitInfo: { unitPrice: 4_000, quantity: '2', quantityUnit: 'PCS' },
      },
      {
        name: 'Shipping',
        id: 'ship',
        totalAmount: 2_000,
        totalAmountExcludingTax: 1_600,
        totalTaxAmount: 400,
        taxPercentage: 25,
        isShipping: true,
      },
    ],
    bottomLine: { currency: 'NOK', totalAmount: 10_000, receiptNumber: 'R-1' },
  };
  expect((await owner.createPayment({ reference, receipt })).status).toBe(201);
  const query = `query($reference: String!) { payment(reference: $reference) { order {
    totalAmount { value currency } receiptNumber
    orderLines { id name quantity quantityUnit unitPrice { value } totalAmount { value currency } taxPercentage isShipping isReturn } } } }`;
  const order = (await data(owner, query, { reference })).payment.order;
  expect(order).toEqual({
    totalAmount: { value: 10_000, currency: 'NOK' },
    receiptNumber: 'R-1',
    orderLines: [
      {
        id: 'sku-1',
        name: 'Socks',
        quantity: '2',
        quantityUnit: 'PCS',
        unitPrice: { value: 4_000 },
        totalAmount: { value: 8_000, currency: 'NOK' },
        taxPercentage: 25,
        isShipping: false,
        isReturn: false,
      },
      {
        id: 'ship',
        name: 'Shipping',
        quantity: null,
        quantityUnit: null,
        unitPrice: null,
        totalAmount: { value: 2_000, currency: 'NOK' },
        taxPercentage: 25,
        isShipping: true,
        isReturn: false,
      },
    ],
  });
  const plain = newReference('order');
  expect((await owner.createPayment({ reference: plain })).status).toBe(201);
  expect((await data(owner, query, { reference: plain })).payment.order).toBeNull();
});

test('Payment.outcome says what became of each payment, by the rule the search and the totals count by, in one statement a page', async () => {
  const prefix = newReference('o').slice(0, 20); // room for the suffixes within 50 characters
  const reserved = await owner.authorizedPayment(10_000, { reference: `${prefix}-reserved` });
  const captured = await owner.authorizedPayment(10_000, { reference: `${prefix}-captured` });
  expect((await owner.modify(captured, 'capture', 4_000)).status).toBe(200);
  const refunded = await owner.authorizedPayment(10_000, { reference: `${prefix}-refunded` });
  expect((await owner.modify(refunded, 'capture', 10_000)).status).toBe(200);
  expect((await owner.modify(refunded, 'refund', 1_000)).status).toBe(200);
  const cancelled = await owner.authorizedPayment(10_000, { reference: `${prefix}-cancelled` });
  expect((await owner.modify(cancelled, 'cancel')).status).toBe(200);
  const pending = `${prefix}-pending`;
  expect((await owner.createPayment({ reference: pending })).status).toBe(201);

  const query = `query($p: String!) { payments(first: 10, filter: { referencePrefix: $p }) { edges { node { reference state outcome } } } }`;
  const seen = t.queries.length;
  const rows = (await data(owner, query, { p: prefix })).payments.edges.map((e: { node: unknown }) => e.node);
  // The outcome rule's statement (the expiry job's verb statement, which may run meanwhile, selects `null as outcome`).
  expect(t.queries.slice(seen).filter((sql) => /\) as outcome from payment\b/.test(sql))).toHaveLength(1);
  expect(
    Object.fromEntries(rows.map((r: { reference: string; state: string; outcome: string }) => [r.reference, [r.state, r.outcome]])),
  ).toEqual({
    [reserved]: ['AUTHORIZED', 'RESERVED'],
    [captured]: ['AUTHORIZED', 'CAPTURED'],
    [refunded]: ['AUTHORIZED', 'REFUNDED'],
    [cancelled]: ['AUTHORIZED', 'CANCELLED'],
    [pending]: ['CREATED', 'PENDING'],
  });
  // Each agrees with the search's outcome filter.
  for (const r of rows as { reference: string; outcome: string }[]) {
    const found = await data(
      owner,
      `query($p: String!, $o: [PaymentOutcome!]) { payments(first: 10, filter: { referencePrefix: $p, outcome: $o }) { edges { node { reference } } } }`,
      {
        p: r.reference,
        o: [r.outcome],
      },
    );
    expect(found.payments.edges).toHaveLength(1);
  }
});
