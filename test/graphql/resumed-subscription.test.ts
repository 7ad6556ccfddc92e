import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { useSubscriptions } from '../support/app-subscriptions.js';
import { eventually, type Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** issue 22: one event id everywhere, and a subscription that resumes after it with no gap and none twice. */
const EVENTS = `subscription($after: ID, $reference: String) {
  paymentEvents(after: $after, reference: $reference) { event { eventId reference name } }
}`;
interface Notification {
  paymentEvents: { event: { eventId: string; reference: string; name: string } };
}

let t: TestApp;
let merchant: MerchantClient;
let receiver: WebhookReceiver;
const subscriptions = useSubscriptions(() => t);

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const subscribe = (client: MerchantClient, variables: Record<string, unknown>): Promise<Subscriber<Notification>> =>
  subscriptions.subscribe(client, EVENTS, variables);

const events = (s: Subscriber<Notification>) => s.results.map((r) => r.data.paymentEvents.event);

test('the webhook header, the graph event and the subscription carry the same event id', async () => {
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
    url: receiver.url('/ids'),
    events: ['epayments.payment.created.v1'],
  });
  receiver.route('/ids', registered.body.secret);
  const live = await subscribe(merchant, {});
  const reference = newReference('ids');
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const [notified] = (await live.waitFor(1)).map((r) => r.data.paymentEvents.event);
  await receiver.waitFor(() => receiver.at('/ids').some((w) => w.body.reference === reference), 'the webhook');
  const header = receiver.at('/ids').find((w) => w.body.reference === reference)!.eventId;
  const graph = await merchant.graphql('query($r: String!) { payment(reference: $r) { events { edges { node { eventId } } } } }', {
    r: reference,
  });
  expect(notified!.eventId).toBe(header);
  expect(graph.body.data.payment.events.edges[0].node.eventId).toBe(header);
  await merchant.request('DELETE', `/webhooks/v1/webhooks/${registered.body.id}`);
});

test('resuming after an event replays what was committed while disconnected, in order, then goes live: each event once', async () => {
  const reference = newReference('resume');
  const first = await subscribe(merchant, { reference });
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const [created] = (await first.waitFor(1)).map((r) => r.data.paymentEvents.event);
  await first.close();
  await eventually(() => t.app.services.events.subscriberCount === 0, 'the first subscription to end');

  // While nobody listens: three more events of the payment, and another merchant's, which never shows.
  expect((await merchant.forceApprove(reference)).status).toBe(200);
  expect((await merchant.modify(reference, 'capture', 4_000)).status).toBe(200);
  expect((await merchant.modify(reference, 'refund', 1_000)).status).toBe(200);
  const other = new MerchantClient(t.baseUrl, MERCHANT_B);
  expect((await other.createPayment()).status).toBe(201);

  const resumed = await subscribe(merchant, { after: created!.eventId });
  // Committed while the replay is being read and sent: live, once.
  const racing = await Promise.all(
    [0, 1, 2, 3].map(async () => {
      const r = newReference('race');
      expect((await merchant.createPayment({ reference: r })).status).toBe(201);
      return r;
    }),
  );
  const sentinel = newReference('last');
  expect((await merchant.createPayment({ reference: sentinel })).status).toBe(201);
  await eventually(() => events(resumed).some((e) => e.reference === sentinel), 'the sentinel');

  const seen = events(resumed);
  const ids = seen.map((e) => e.eventId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(seen.filter((e) => e.reference === reference).map((e) => e.name)).toEqual(['AUTHORIZED', 'CAPTURED', 'REFUNDED']);
  // The replay comes in id order, before anything live.
  expect(seen.slice(0, 3).map((e) => e.reference)).toEqual([reference, reference, reference]);
  expect(ids.slice(0, 3).map(Number)).toEqual([...ids.slice(0, 3).map(Number)].sort((a, b) => a - b));
  for (const r of racing) expect(seen.filter((e) => e.reference === r)).toHaveLength(1);
  expect(seen.every((e) => Number(e.eventId) > Number(created!.eventId))).toBe(true);
  expect(resumed.results.every((r) => r.errors === undefined)).toBe(true);
});

test('an after that is no event id is refused', async () => {
  expect(await subscriptions.refusal(merchant, EVENTS, { after: 'abc' })).toContain('after is not an event id');
});
