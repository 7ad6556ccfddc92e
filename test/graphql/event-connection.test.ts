import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** issue 22: one connection over every event the caller may see, of every stream, filtered and keyset-paged. */
let t: TestApp;
let merchant: MerchantClient;
let other: MerchantClient;

beforeAll(async () => {
  // No flush of the API quality counts either: its statements would land in a page's count.
  t = await startTestApp({ runJobs: false, flushIntervalMs: 3_600_000 });
  merchant = new MerchantClient(t.baseUrl);
  other = new MerchantClient(t.baseUrl, MERCHANT_B);
});
afterAll(() => t.close());

const EVENTS = `query($first: Int, $after: String, $filter: StreamEventFilter) {
  events(first: $first, after: $after, filter: $filter) {
    edges { node { eventId name streamType reference occurredAt payload } }
    pageInfo { hasNextPage endCursor }
  }
}`;

async function events(variables: Record<string, unknown>, client = merchant): Promise<any> {
  const res = await client.graphql(EVENTS, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.events;
}

async function checkIn(): Promise<void> {
  await merchant.request('PUT', '/qr/v1/merchant-callback/till-1', { locationDescription: 'Till 1' });
  const { qrContent } = (await merchant.request('GET', '/qr/v1/merchant-callback/till-1', undefined, { Accept: 'image/svg+xml' })).body;
  const scan = await fetch(qrContent, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.baseUrl },
    body: 'phoneNumber=4791234567',
  });
  expect(scan.status).toBe(200);
}

test('payments and QR check-ins in one list, newest first, the same ids as the payment log, another merchant’s never', async () => {
  const reference = newReference('log');
  const start = t.clock.now();
  await merchant.authorizedPayment(1_000, { reference });
  t.clock.advance(1_000);
  await checkIn();
  expect((await other.createPayment()).status).toBe(201);

  const all = await events({ first: 3 });
  expect(all.edges.map((e: any) => [e.node.streamType, e.node.name])).toEqual([
    ['qr', expect.stringMatching(/check/i)],
    ['payment', 'epayments.payment.authorized.v1'],
    ['payment', 'epayments.payment.created.v1'],
  ]);
  const ids = all.edges.map((e: any) => Number(e.node.eventId));
  expect(ids).toEqual([...ids].sort((a, b) => b - a));
  const log = await merchant.graphql('query($r: String!) { payment(reference: $r) { events { edges { node { eventId } } } } }', {
    r: reference,
  });
  expect(log.body.data.payment.events.edges.map((e: any) => e.node.eventId)).toEqual([
    all.edges[2].node.eventId,
    all.edges[1].node.eventId,
  ]);
  expect(all.edges[1].node.reference).toBe(reference);
  expect(JSON.parse(all.edges[1].node.payload)).toMatchObject({ reference, name: 'AUTHORIZED' });

  // Filters: a stream type, names, a time window.
  const qr = await events({ filter: { streamType: 'qr' } });
  expect(qr.edges.map((e: any) => e.node.streamType)).toEqual(['qr']);
  const created = await events({ filter: { names: ['epayments.payment.created.v1'], occurredFrom: start.toISOString() } });
  expect(created.edges.map((e: any) => e.node.reference)).toEqual([reference]);
  const early = await events({
    filter: { occurredBefore: new Date(start.getTime() + 500).toISOString(), occurredFrom: start.toISOString() },
  });
  expect(early.edges.map((e: any) => e.node.streamType)).toEqual(['payment', 'payment']);

  // Pages go on from their cursor, for their own filter only.
  const first = await events({ first: 1 });
  const second = await events({ first: 1, after: first.pageInfo.endCursor });
  expect(second.edges[0].node.eventId).toBe(all.edges[1].node.eventId);
  const crossed = await merchant.graphql(EVENTS, { first: 1, after: first.pageInfo.endCursor, filter: { streamType: 'payment' } });
  expect(crossed.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');

  const theirs = await events({ first: 100 }, other);
  expect(theirs.edges.some((e: any) => e.node.reference === reference)).toBe(false);
  expect(theirs.edges.some((e: any) => e.node.streamType === 'qr')).toBe(false);
});

test('a page costs one statement whatever its size', async () => {
  for (let i = 0; i < 6; i++) expect((await merchant.createPayment()).status).toBe(201);
  await merchant.graphql('{ __typename }');
  const counts: number[] = [];
  for (const first of [1, 5]) {
    const before = t.queries.length;
    expect((await events({ first })).edges).toHaveLength(first);
    counts.push(t.queries.length - before);
  }
  expect(counts[0]).toBeGreaterThan(0);
  expect(counts[0]).toBe(counts[1]);
});

// issue 37 (listen) and issue 33: an oldest-first read after an event id, in the order a resumed subscription gets
// the events, paged by cursor however many there are.
const OLDEST_FIRST = `query($first: Int, $after: String, $afterEventId: ID, $filter: StreamEventFilter) {
  events(first: $first, after: $after, afterEventId: $afterEventId, order: OLDEST_FIRST, filter: $filter) {
    edges { node { eventId name reference } }
    pageInfo { hasNextPage endCursor }
  }
}`;

test('oldest first after an event id: the events that followed it, in order, page after page, another merchant’s never', async () => {
  const reference = newReference('after');
  await merchant.authorizedPayment(1_000, { reference });
  const log = await merchant.graphql('query($r: String!) { payment(reference: $r) { events { edges { node { eventId } } } } }', {
    r: reference,
  });
  // The payment's log is oldest first: its CREATED event is the first.
  const created = log.body.data.payment.events.edges[0].node.eventId;
  expect((await other.createPayment()).status).toBe(201);
  expect((await merchant.modify(reference, 'capture', 400)).status).toBe(200);
  expect((await merchant.modify(reference, 'refund', 100)).status).toBe(200);

  const filter = { streamType: 'payment' };
  const first = await merchant.graphql(OLDEST_FIRST, { first: 2, afterEventId: created, filter });
  expect(first.body.errors).toBeUndefined();
  const page1 = first.body.data.events;
  expect(page1.pageInfo.hasNextPage).toBe(true);
  const second = await merchant.graphql(OLDEST_FIRST, { first: 2, after: page1.pageInfo.endCursor, afterEventId: created, filter });
  const page2 = second.body.data.events;
  const read = [...page1.edges, ...page2.edges].map((e: any) => [e.node.reference, e.node.name]);
  expect(read).toEqual([
    [reference, 'epayments.payment.authorized.v1'],
    [reference, 'epayments.payment.captured.v1'],
    [reference, 'epayments.payment.refunded.v1'],
  ]);
  expect(page2.pageInfo.hasNextPage).toBe(false);
  const ids = [...page1.edges, ...page2.edges].map((e: any) => Number(e.node.eventId));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  // A cursor of the oldest-first order is not one of the newest-first order.
  const mixed = await merchant.graphql(EVENTS, { first: 2, after: page1.pageInfo.endCursor, filter });
  expect(mixed.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
});

test('oldest first: afterEventId needs OLDEST_FIRST, and another merchant’s event id is answered as a missing one', async () => {
  const reference = newReference('theirs');
  expect((await other.createPayment({ reference })).status).toBe(201);
  const theirs = await other.graphql('query($r: String!) { payment(reference: $r) { events { edges { node { eventId } } } } }', {
    r: reference,
  });
  const theirEvent = theirs.body.data.payment.events.edges[0].node.eventId;
  const foreign = await merchant.graphql(OLDEST_FIRST, { afterEventId: theirEvent });
  const missing = await merchant.graphql(OLDEST_FIRST, { afterEventId: '999999999' });
  expect(foreign.body.errors.map((e: any) => [e.message, e.extensions.code, e.extensions.field])).toEqual([
    ['afterEventId is not an event of this sales unit', 'BAD_USER_INPUT', 'afterEventId'],
  ]);
  expect(foreign.body.errors.map((e: any) => e.message)).toEqual(missing.body.errors.map((e: any) => e.message));
  const newest = await merchant.graphql('query($e: ID) { events(afterEventId: $e) { edges { cursor } } }', { e: theirEvent });
  expect(newest.body.errors.map((e: any) => [e.extensions.code, e.extensions.field])).toEqual([['BAD_USER_INPUT', 'afterEventId']]);
});
