import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { useSubscriptions } from '../support/app-subscriptions.js';
import { eventually, type Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** issue 22: the live events feed over every stream, resuming after an event id with no gap and none twice. */
const EVENTS = `subscription($after: ID, $streamType: String, $names: [String!]) {
  streamEvents(after: $after, streamType: $streamType, names: $names) { eventId name streamType reference }
}`;
interface StreamEvent {
  eventId: string;
  name: string;
  streamType: string;
  reference: string | null;
}

let t: TestApp;
let merchant: MerchantClient;
const subscriptions = useSubscriptions(() => t);

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const subscribe = (variables: Record<string, unknown>): Promise<Subscriber<{ streamEvents: StreamEvent }>> =>
  subscriptions.subscribe(merchant, EVENTS, variables);

const received = (s: Subscriber<{ streamEvents: StreamEvent }>) => s.results.map((r) => r.data.streamEvents);

async function checkIn(): Promise<void> {
  await merchant.request('PUT', '/qr/v1/merchant-callback/feed-till', { locationDescription: 'Till' });
  const { qrContent } = (await merchant.request('GET', '/qr/v1/merchant-callback/feed-till', undefined, { Accept: 'image/svg+xml' })).body;
  const scan = await fetch(qrContent, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.baseUrl },
    body: 'phoneNumber=4791234567',
  });
  expect(scan.status).toBe(200);
}

test('live: a QR check-in and payment events, of every stream, narrowed by stream type', async () => {
  const all = await subscribe({});
  const qrOnly = await subscribe({ streamType: 'qr' });
  const reference = newReference('feed');
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  await checkIn();
  await eventually(() => received(all).some((e) => e.streamType === 'qr'), 'the check-in');
  expect(received(all).map((e) => [e.streamType, e.reference])).toEqual([
    ['payment', reference],
    ['qr', null],
  ]);
  await eventually(() => received(qrOnly).length > 0, 'the check-in, alone');
  expect(received(qrOnly).map((e) => e.streamType)).toEqual(['qr']);
});

test('resuming after an event replays what was committed while disconnected, in order, then goes live: each event once', async () => {
  const first = await subscribe({});
  const reference = newReference('resume');
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const [created] = (await first.waitFor(1)).map((r) => r.data.streamEvents);
  await first.close();
  await eventually(() => t.app.services.events.subscriberCount === 0, 'the first subscription to end');

  // While nobody listens: a payment's events, a check-in, and another merchant's payment, which never shows.
  expect((await merchant.forceApprove(reference)).status).toBe(200);
  expect((await merchant.modify(reference, 'capture', 4_000)).status).toBe(200);
  await checkIn();
  const theirs = newReference('theirs');
  expect((await new MerchantClient(t.baseUrl, MERCHANT_B).createPayment({ reference: theirs })).status).toBe(201);
  const missed = await merchant.graphql('query { events(first: 100) { edges { node { eventId } } } }');
  const since = missed.body.data.events.edges
    .map((e: { node: { eventId: string } }) => e.node.eventId)
    .filter((id: string) => Number(id) > Number(created!.eventId))
    .reverse();
  expect(since.length).toBeGreaterThanOrEqual(3);

  const resumed = await subscribe({ after: created!.eventId });
  // Committed while the replay is being read and sent: live, once.
  const racing = await Promise.all(
    [0, 1, 2].map(async () => {
      const r = newReference('race');
      expect((await merchant.createPayment({ reference: r })).status).toBe(201);
      return r;
    }),
  );
  const sentinel = newReference('last');
  expect((await merchant.createPayment({ reference: sentinel })).status).toBe(201);
  await eventually(() => received(resumed).some((e) => e.reference === sentinel), 'the sentinel');

  const ids = received(resumed).map((e) => e.eventId);
  expect(ids.slice(0, since.length)).toEqual(since);
  expect(new Set(ids).size).toBe(ids.length);
  // Live events come in the order they committed after the replay: for three creates racing each other that need not
  // be the order of their ids (an id is taken before the commit), but every one is newer than the whole replay.
  const live = ids.slice(since.length).map(Number);
  expect(Math.min(...live)).toBeGreaterThan(Math.max(...since.map(Number)));
  expect(ids).not.toContain(created!.eventId);
  const references = received(resumed).map((e) => e.reference);
  for (const r of [...racing, sentinel]) expect(references.filter((x) => x === r)).toHaveLength(1);
  expect(references).not.toContain(theirs);
});

test('an after that is not an event id is refused', async () => {
  expect(await subscriptions.refusal(merchant, EVENTS, { after: 'abc' })).toContain('after is not an event id');
});
