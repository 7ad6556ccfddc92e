import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { namesFor, WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';
import { loadConfig } from '../../src/config.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

const ALL_EVENTS = ['created', 'aborted', 'expired', 'cancelled', 'captured', 'refunded', 'authorized', 'terminated'].map(
  (n) => `epayments.payment.${n}.v1`,
);
// Short for a test, yet long enough that a busy machine (CI runs suites side by side on two cores) never times out
// an answer that was on its way: a timed-out attempt waits for its retry on the app clock, which only tests move.
const TIMEOUT_MS = 2_000;
// Short enough that the clock never moves past the 1-hour access tokens in this file.
const RETRY_WINDOW_MS = 5 * 60 * 1000;

let t: TestApp;
let merchant: MerchantClient;
let other: MerchantClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  // A short timeout and retry window, so timeouts and giving up happen within the test; the clock does the rest.
  t = await startTestApp({ webhooks: { ...loadConfig({}).webhooks, timeoutMs: TIMEOUT_MS, retryWindowMs: RETRY_WINDOW_MS } });
  merchant = new MerchantClient(t.baseUrl);
  other = new MerchantClient(t.baseUrl, MERCHANT_B);
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});
afterEach(() => {
  // Every request that reached the receiver, in every test, carried a valid signature.
  expect(receiver.received.filter((r) => !r.verified)).toEqual([]);
});

async function registerAt(
  client: MerchantClient,
  path: string,
  events = ALL_EVENTS,
  reply?: (body: any) => number | { hang: number },
): Promise<string> {
  const registered = await client.request('POST', '/webhooks/v1/webhooks', { url: receiver.url(path), events });
  expect(registered.status).toBe(201);
  receiver.route(path, registered.body.secret, reply);
  return registered.body.id;
}

async function created(client: MerchantClient = merchant): Promise<{ reference: string; token: string }> {
  const reference = newReference();
  const response = await client.createPayment({ reference });
  expect(response.status).toBe(201);
  return { reference, token: new URL(response.body.redirectUrl).searchParams.get('token')! };
}

const acknowledged = (path: string, reference: string) => namesFor(receiver.at(path), reference, true);

const DELIVERIES = `query($id: ID!, $first: Int, $after: String) {
  webhookDeliveries(webhookId: $id, first: $first, after: $after) {
    edges { cursor node { id eventId eventName reference status attemptCount lastStatusCode deliveredAt nextAttemptAt attempts(first: 10) { edges { node { state statusCode durationMs error attemptedAt } } } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

async function deliveriesOf(webhookId: string, reference: string): Promise<any[]> {
  const result = await merchant.graphql(DELIVERIES, { id: webhookId, first: 100 });
  expect(result.body.errors).toBeUndefined();
  return result.body.data.webhookDeliveries.edges
    .map((e: any) => ({ ...e.node, attempts: e.node.attempts.edges.map((a: any) => a.node) }))
    .filter((d: any) => d.reference === reference);
}

/**
 * The newest delivery of `reference` once `condition` holds, as recorded (the receiver sees a request before its
 * outcome is recorded, so tests move the clock only after this).
 */
async function deliveryWhen(webhookId: string, reference: string, condition: (delivery: any) => boolean): Promise<any> {
  for (const deadline = Date.now() + CONDITION_DEADLINE_MS; ;) {
    const [delivery] = await deliveriesOf(webhookId, reference);
    if (delivery && condition(delivery)) return delivery;
    if (Date.now() > deadline) throw new Error(`delivery not as expected: ${JSON.stringify(delivery)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const attemptsRecorded = (webhookId: string, reference: string, count: number) =>
  deliveryWhen(webhookId, reference, (d) => d.attemptCount >= count);

test('every event name is delivered, signed, in order, with the documented payload', async () => {
  const webhookId = await registerAt(merchant, '/all');
  const full = await created();
  expect((await merchant.forceApprove(full.reference)).status).toBe(200);
  expect((await merchant.modify(full.reference, 'capture', 3_000, 'capture-key-1')).status).toBe(200);
  expect((await merchant.modify(full.reference, 'refund', 1_000)).status).toBe(200);
  expect((await merchant.modify(full.reference, 'cancel')).status).toBe(200);
  const terminated = await created();
  expect((await merchant.modify(terminated.reference, 'cancel')).status).toBe(200);
  const aborted = await created();
  const reject = await merchant.raw('POST', `/wallet/landing/reject?token=${aborted.token}`, '', {
    'Content-Type': 'application/x-www-form-urlencoded',
  });
  expect(reject.status).toBe(200);

  const expected: [string, string[]][] = [
    [full.reference, ['CREATED', 'AUTHORIZED', 'CAPTURED', 'REFUNDED', 'CANCELLED']],
    [terminated.reference, ['CREATED', 'TERMINATED']],
    [aborted.reference, ['CREATED', 'ABORTED']],
  ];
  await receiver.waitFor(
    () => expected.every(([reference, names]) => acknowledged('/all', reference).length === names.length),
    'the lifecycle events',
  );
  for (const [reference, names] of expected) expect(acknowledged('/all', reference)).toEqual(names);

  // A payment nobody acts on expires once its 10 minutes have passed on the app clock.
  const expiring = await created();
  await deliveryWhen(webhookId, expiring.reference, (d) => d.status === 'DELIVERED');
  t.clock.advance(11 * 60 * 1000);
  await receiver.waitFor(() => acknowledged('/all', expiring.reference).length === 2, 'EXPIRED');
  expect(acknowledged('/all', expiring.reference)).toEqual(['CREATED', 'EXPIRED']);

  const log = (await merchant.events(full.reference)).body;
  const captured = receiver.at('/all').find((r) => r.body.reference === full.reference && r.body.name === 'CAPTURED')!;
  const capturedInLog = log.find((e: any) => e.name === 'CAPTURED');
  expect(captured.body).toEqual({
    msn: merchant.merchant.msn,
    reference: full.reference,
    pspReference: capturedInLog.pspReference,
    name: 'CAPTURED',
    amount: { currency: 'NOK', value: 3_000 },
    timestamp: capturedInLog.timestamp,
    idempotencyKey: 'capture-key-1',
    success: true,
  });
  expect(captured.headers['content-type']).toBe('application/json');
  expect(captured.headers.host).toBe(`127.0.0.1:${receiver.port}`);
  expect(captured.headers['x-ms-date']).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  // Each event travels with its own outbox id, the receiver's key for de-duplication.
  const ids = receiver.at('/all').map((r) => r.eventId);
  expect(ids.every((id) => /^\d+$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);

  const deliveries = await deliveriesOf(webhookId, full.reference);
  expect(deliveries.map((d) => [d.eventName, d.status, d.attemptCount, d.lastStatusCode])).toEqual(
    ['CANCELLED', 'REFUNDED', 'CAPTURED', 'AUTHORIZED', 'CREATED'].map((name) => [name, 'DELIVERED', 1, 200]),
  );
  await merchant.request('DELETE', `/webhooks/v1/webhooks/${webhookId}`);
});

test('a 500 is retried with backoff when the clock moves, and every attempt is readable through the graph', async () => {
  let failuresLeft = 2;
  const webhookId = await registerAt(merchant, '/flaky', ALL_EVENTS, () => (failuresLeft-- > 0 ? 500 : 204));
  const { reference } = await created();
  const pending = await attemptsRecorded(webhookId, reference, 1);
  expect(pending).toMatchObject({ status: 'PENDING', attemptCount: 1, lastStatusCode: 500, deliveredAt: null });
  // The first retry comes within seconds (1 to 2 s with jitter); the next backs off further.
  const wait = new Date(pending.nextAttemptAt).getTime() - t.clock.now().getTime();
  expect(wait).toBeGreaterThanOrEqual(1_000);
  expect(wait).toBeLessThanOrEqual(2_000);
  t.clock.advance(2_000);
  await attemptsRecorded(webhookId, reference, 2);
  t.clock.advance(4_000);
  const delivered = await attemptsRecorded(webhookId, reference, 3);
  expect(delivered).toMatchObject({ eventName: 'CREATED', status: 'DELIVERED', attemptCount: 3, lastStatusCode: 204, nextAttemptAt: null });
  expect(delivered.attempts.map((a: any) => [a.statusCode, a.error])).toEqual([
    [500, null],
    [500, null],
    [204, null],
  ]);
  expect(receiver.at('/flaky').map((r) => r.eventId)).toEqual(Array(3).fill(receiver.at('/flaky')[0]!.eventId));
  await merchant.request('DELETE', `/webhooks/v1/webhooks/${webhookId}`);
});

test('a receiver that does not answer in time, or refuses connections, is retried', async () => {
  let hangs = 1;
  const slowId = await registerAt(merchant, '/slow', ['epayments.payment.created.v1'], () =>
    hangs-- > 0 ? { hang: TIMEOUT_MS * 5 } : 200,
  );
  const closedPort = await new WebhookReceiver().start();
  await closedPort.close();
  const refused = await merchant.request('POST', '/webhooks/v1/webhooks', {
    url: closedPort.url('/gone'),
    events: ['epayments.payment.created.v1'],
  });
  const { reference } = await created();

  await receiver.waitFor(() => receiver.at('/slow').length === 1, 'the first attempt');
  for (const deadline = Date.now() + CONDITION_DEADLINE_MS; ;) {
    const [slow] = await deliveriesOf(slowId, reference);
    const [gone] = await deliveriesOf(refused.body.id, reference);
    // Counted once recorded: an attempt is listed from its claim on, before its outcome is known.
    if (slow?.attemptCount === 1 && gone?.attemptCount === 1) {
      expect(slow.attempts[0]).toMatchObject({ statusCode: null, error: `timeout: no response within ${TIMEOUT_MS} ms` });
      expect(gone.attempts[0]).toMatchObject({ statusCode: null, error: 'connection refused' });
      expect([slow.status, gone.status]).toEqual(['PENDING', 'PENDING']);
      break;
    }
    if (Date.now() > deadline) throw new Error(`attempts not recorded: ${JSON.stringify([slow, gone])}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.clock.advance(2_000);
  expect(await attemptsRecorded(slowId, reference, 2)).toMatchObject({ status: 'DELIVERED', attemptCount: 2 });
  await merchant.request('DELETE', `/webhooks/v1/webhooks/${slowId}`);
  await merchant.request('DELETE', `/webhooks/v1/webhooks/${refused.body.id}`);
});

test("a failing event holds back that payment's later events at that endpoint, and only those", async () => {
  const blocked = new Set<string>();
  const webhookId = await registerAt(merchant, '/ordered', ALL_EVENTS, (body) => (blocked.has(body.reference) ? 503 : 200));
  const stuck = newReference();
  blocked.add(stuck);
  expect((await merchant.createPayment({ reference: stuck })).status).toBe(201);
  await attemptsRecorded(webhookId, stuck, 1);
  expect((await merchant.forceApprove(stuck)).status).toBe(200);
  expect((await merchant.modify(stuck, 'capture', 1_000)).status).toBe(200);

  const flowing = await merchant.authorizedPayment(5_000);
  expect((await merchant.modify(flowing, 'capture', 5_000)).status).toBe(200);
  await receiver.waitFor(() => acknowledged('/ordered', flowing).length === 3, 'the other payment');
  expect(acknowledged('/ordered', flowing)).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);
  expect(namesFor(receiver.at('/ordered'), stuck)).toEqual(['CREATED']);
  const held = await deliveriesOf(webhookId, stuck);
  expect(held.map((d) => [d.eventName, d.status, d.attemptCount])).toEqual([
    ['CAPTURED', 'PENDING', 0],
    ['AUTHORIZED', 'PENDING', 0],
    ['CREATED', 'PENDING', 1],
  ]);

  blocked.delete(stuck);
  t.clock.advance(2_000);
  await receiver.waitFor(() => acknowledged('/ordered', stuck).length === 3, 'the held events');
  expect(namesFor(receiver.at('/ordered'), stuck)).toEqual(['CREATED', 'CREATED', 'AUTHORIZED', 'CAPTURED']);
  await merchant.request('DELETE', `/webhooks/v1/webhooks/${webhookId}`);
});

test('a delivery that failed for the whole retry window can be redelivered through the graph', async () => {
  let down = true;
  const webhookId = await registerAt(merchant, '/down', ['epayments.payment.created.v1'], () => (down ? 502 : 200));
  const { reference } = await created();
  let delivery = await attemptsRecorded(webhookId, reference, 1);
  // Past the retry window, the next failure is the last.
  t.clock.advance(RETRY_WINDOW_MS);
  delivery = await attemptsRecorded(webhookId, reference, 2);
  expect(delivery).toMatchObject({ status: 'FAILED', attemptCount: 2, lastStatusCode: 502, nextAttemptAt: null });

  const REDELIVER = `mutation($id: ID!) { redeliverWebhookDelivery(input: { deliveryId: $id }) { delivery { status } userErrors { code field } } }`;
  const foreign = await other.graphql(REDELIVER, { id: delivery.id });
  expect(foreign.body.data.redeliverWebhookDelivery).toEqual({
    delivery: null,
    userErrors: [{ code: 'WEBHOOK_DELIVERY_NOT_FOUND', field: 'deliveryId' }],
  });
  down = false;
  const redelivered = await merchant.graphql(REDELIVER, { id: delivery.id });
  expect(redelivered.body.data.redeliverWebhookDelivery).toEqual({ delivery: { status: 'PENDING' }, userErrors: [] });
  delivery = await attemptsRecorded(webhookId, reference, 3);
  expect(delivery.status).toBe('DELIVERED');
  expect(acknowledged('/down', reference)).toEqual(['CREATED']);
  expect(delivery.attempts.map((a: any) => a.statusCode)).toEqual([502, 502, 200]);
  const again = await merchant.graphql(REDELIVER, { id: delivery.id });
  expect(again.body.data.redeliverWebhookDelivery.userErrors).toEqual([
    { code: 'WEBHOOK_DELIVERY_ALREADY_DELIVERED', field: 'deliveryId' },
  ]);
  await merchant.request('DELETE', `/webhooks/v1/webhooks/${webhookId}`);
});

test("deliveries pages by keyset, and an event never goes to another merchant's registration", async () => {
  const mine = await registerAt(merchant, '/mine', ['epayments.payment.created.v1']);
  await registerAt(other, '/theirs', ['epayments.payment.created.v1']);
  const ours = [await created(), await created(), await created()].map((p) => p.reference);
  const theirs = (await created(other)).reference;
  await receiver.waitFor(() => receiver.at('/mine').length === 3 && receiver.at('/theirs').length === 1, 'both merchants’ events');
  const msnOf = (received: ReceivedWebhook[]) => [...new Set(received.map((r) => r.body.msn))];
  expect(msnOf(receiver.at('/mine'))).toEqual([merchant.merchant.msn]);
  expect(msnOf(receiver.at('/theirs'))).toEqual([MERCHANT_B.msn]);
  expect(receiver.at('/theirs').map((r) => r.body.reference)).toEqual([theirs]);

  const first = await merchant.graphql(DELIVERIES, { id: mine, first: 2 });
  const page1 = first.body.data.webhookDeliveries;
  expect(page1.pageInfo.hasNextPage).toBe(true);
  const second = await merchant.graphql(DELIVERIES, { id: mine, first: 2, after: page1.pageInfo.endCursor });
  const page2 = second.body.data.webhookDeliveries;
  expect(page2.pageInfo.hasNextPage).toBe(false);
  expect([...page1.edges, ...page2.edges].map((e: any) => e.node.reference)).toEqual([...ours].reverse());
});
