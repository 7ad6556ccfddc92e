import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { loadConfig } from '../../src/config.js';

/** issue 22: which receiver fails, what each attempt came to, when it is tried again, and what waits behind it. */
const RETRY_WINDOW_MS = 5 * 60 * 1000;
let t: TestApp;
let merchant: MerchantClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({ webhooks: { ...loadConfig({}).webhooks, timeoutMs: 10_000, retryWindowMs: RETRY_WINDOW_MS } });
  merchant = new MerchantClient(t.baseUrl);
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const HEALTH = `query($status: [WebhookDeliveryStatus!]) { webhooks { id url failureRate { attempts failed failing }
  deliveries(first: 50, status: $status) { edges { node {
    id eventName reference status targetUrl nextAttemptAt waitingForEarlierEvent
    attempts { edges { node { state outcome statusCode } } } } } } } }`;

async function health(status?: string[]): Promise<any[]> {
  const res = await merchant.graphql(HEALTH, { status });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.webhooks;
}

async function until<T>(read: () => Promise<T>, holds: (value: T) => boolean): Promise<T> {
  for (const deadline = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 25))) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`never held: ${JSON.stringify(value)}`);
  }
}

test('a failing receiver: failed attempts, its next attempt time, the events held behind, and redeliver all failed', async () => {
  let receiverDown = true;
  const events = ['epayments.payment.created.v1', 'epayments.payment.authorized.v1'];
  const failing = await merchant.request('POST', '/webhooks/v1/webhooks', { url: receiver.url('/down'), events });
  const healthy = await merchant.request('POST', '/webhooks/v1/webhooks', { url: receiver.url('/up'), events });
  receiver.route('/down', failing.body.secret, () => (receiverDown ? 503 : 200));
  receiver.route('/up', healthy.body.secret, () => 200);
  const reference = newReference('health');
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  expect((await merchant.forceApprove(reference)).status).toBe(200);

  const hooks = await until(
    () => health(),
    (list) => {
      const bad = list.find((w) => w.id === failing.body.id);
      const up = list.find((w) => w.id === healthy.body.id);
      return (
        bad?.failureRate.attempts >= 1 &&
        up?.deliveries.edges.every((e: any) => e.node.status === 'DELIVERED') &&
        up.deliveries.edges.length === 2
      );
    },
  );
  const down = hooks.find((w) => w.id === failing.body.id);
  const up = hooks.find((w) => w.id === healthy.body.id);
  expect(down.failureRate).toMatchObject({ failed: down.failureRate.attempts, failing: true });
  expect(up.failureRate).toMatchObject({ failed: 0, failing: false });
  const [authorized, created] = down.deliveries.edges.map((e: any) => e.node);
  expect(created).toMatchObject({
    eventName: 'CREATED',
    status: 'PENDING',
    targetUrl: receiver.url('/down'),
    waitingForEarlierEvent: false,
  });
  expect(created.attempts.edges[0].node).toEqual({ state: 'COMPLETED', outcome: 'FAILED', statusCode: 503 });
  expect(Date.parse(created.nextAttemptAt)).toBeGreaterThan(t.clock.now().getTime());
  expect(authorized).toMatchObject({ eventName: 'AUTHORIZED', status: 'PENDING', waitingForEarlierEvent: true, attempts: { edges: [] } });
  expect(up.deliveries.edges[0].node.attempts.edges[0].node).toEqual({ state: 'COMPLETED', outcome: 'SUCCEEDED', statusCode: 200 });

  // Failed and pending first: the status filter gives the dashboard those alone.
  const pendingOnly = (await health(['PENDING', 'FAILED'])).find((w) => w.id === healthy.body.id);
  expect(pendingOnly.deliveries.edges).toEqual([]);

  // Past the retry window the next failure is final; then every failed delivery gets one more try at once.
  t.clock.advance(RETRY_WINDOW_MS);
  await until(
    () => health(['PENDING']),
    (list) => list.find((w) => w.id === failing.body.id)?.deliveries.edges.length === 0,
  );
  const failed = (await health(['FAILED'])).find((w) => w.id === failing.body.id).deliveries.edges;
  expect(failed.map((e: any) => e.node.eventName)).toContain('CREATED');
  const REDELIVER_ALL = `mutation($id: ID!) { redeliverFailedWebhookDeliveries(input: { webhookId: $id }) { redelivered userErrors { code field } } }`;
  const foreign = await new MerchantClient(t.baseUrl, MERCHANT_B).graphql(REDELIVER_ALL, { id: failing.body.id });
  expect(foreign.body.data.redeliverFailedWebhookDeliveries).toEqual({
    redelivered: null,
    userErrors: [{ code: 'WEBHOOK_NOT_FOUND', field: 'id' }],
  });
  receiverDown = false;
  const again = await merchant.graphql(REDELIVER_ALL, { id: failing.body.id });
  expect(again.body.data.redeliverFailedWebhookDeliveries).toEqual({ redelivered: failed.length, userErrors: [] });
  await until(
    () => health(),
    (list) => list.find((w) => w.id === failing.body.id)?.deliveries.edges.every((e: any) => e.node.status === 'DELIVERED'),
  );
});

test("issue 35: after unit 123456's test clock moves 3 days, a receiver answering 500 shows its failed attempts", async () => {
  const advanced = await merchant.graphql(
    `mutation($input: AdvanceTestClockInput!) { advanceTestClock(input: $input) { testClock { now } userErrors { code } } }`,
    { input: { seconds: 3 * 24 * 60 * 60 } },
  );
  expect(advanced.body.data.advanceTestClock.userErrors).toEqual([]);
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
    url: receiver.url('/error'),
    events: ['epayments.payment.created.v1'],
  });
  receiver.route('/error', registered.body.secret, () => 500);
  const references = [newReference('clock'), newReference('clock'), newReference('clock')];
  for (const reference of references) expect((await merchant.createPayment({ reference })).status).toBe(201);

  const hook = await until(
    async () => (await health()).find((w) => w.id === registered.body.id),
    (w) => w?.failureRate.attempts >= references.length,
  );
  expect(hook.failureRate).toEqual({ attempts: hook.failureRate.attempts, failed: hook.failureRate.attempts, failing: true });
  // The payments' own figures stay on the unit's clock, which stamped them: today's totals and the last hour hold them.
  const figures = await merchant.graphql(`{ paymentTotals { byOutcome { outcome count } } paymentEventsPerMinute { count } }`);
  const created = figures.body.data.paymentTotals.byOutcome.reduce((sum: number, row: { count: number }) => sum + row.count, 0);
  expect(created).toBeGreaterThanOrEqual(references.length);
  const lastHour = figures.body.data.paymentEventsPerMinute.reduce((sum: number, row: { count: number }) => sum + row.count, 0);
  expect(lastHour).toBeGreaterThanOrEqual(references.length);
});
