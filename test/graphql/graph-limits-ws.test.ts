import type { GraphQLFormattedError } from 'graphql';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { connectionParamsOf, describeFailure, eventually, Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The graph's depth, alias and cost limits on graphql-ws, at each limit and one past it, as graph-limits.test.ts
 * does on HTTP. The same small limits as there, so both faces are held to the same numbers.
 */
const limits = { maxDepth: 5, maxAliases: 30, maxCost: 31 };

let t: TestApp;
let merchant: MerchantClient;
const open: Subscriber[] = [];

beforeAll(async () => {
  // Jobs wait an hour, so the statement log shows only what the subscriptions and the test's requests ran.
  t = await startTestApp({ graphqlLimits: limits, jobIntervalMs: 3_600_000 });
  merchant = new MerchantClient(t.baseUrl);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  await eventually(() => t.app.services.paymentEvents.subscriberCount === 0, 'subscriptions to be released');
});
afterAll(() => t.close());

/** paymentEvents 1 > payment 2 > aggregate 3 > capturedAmount 4 > value 5. */
const DEPTH_5 = 'subscription { paymentEvents { payment { aggregate { capturedAmount { value } } } } }';
/** paymentEvents 1 > payment 2 > events 3 > edges 4 > node 5 > reference 6. */
const DEPTH_6 = 'subscription { paymentEvents { payment { events(first: 1) { edges { node { reference } } } } } }';

/** The root field's alias counts too: `count` aliases in all, at a cost of `count` (the root 1 + count - 1 leaves). */
function subscriptionWithAliases(count: number): string {
  return `subscription { e: paymentEvents { ${Array.from({ length: count - 1 }, (_, i) => `a${i}: __typename`).join(' ')} } }`;
}

/** Depth 5 whatever the page; costs 3 + first * 2 (paymentEvents 1 + payment 1 + events 1 + first * (edges 1 + cursor 1)). */
const subscriptionOfPageSize = (first: number) =>
  `subscription { paymentEvents { payment { events(first: ${first}) { edges { cursor } } } } }`;

type Notification = Record<string, Record<string, unknown>>;

/** Subscribes, waits until the server holds the subscription, creates a payment and returns its notification. */
async function expectServed(query: string): Promise<Record<string, unknown>> {
  const before = t.app.services.paymentEvents.subscriberCount;
  const subscriber = new Subscriber<Notification>(t.baseUrl, await connectionParamsOf(merchant)).subscribe(query);
  open.push(subscriber);
  await eventually(
    () => subscriber.failure !== undefined || t.app.services.paymentEvents.subscriberCount > before,
    'the subscription to register',
  );
  if (subscriber.failure !== undefined) throw new Error(`subscription refused: ${describeFailure(subscriber.failure)}`);
  expect((await merchant.createPayment({ reference: newReference() })).status).toBe(201);
  const [result] = await subscriber.waitFor(1);
  expect(result!.errors).toBeUndefined();
  // One root field, under its alias if it has one.
  return Object.values(result!.data)[0]!;
}

/** The operation's `error` message; no subscription was added and no payment was read. */
async function refusal(query: string): Promise<GraphQLFormattedError[]> {
  const before = t.queries.length;
  const subscriptions = t.app.services.paymentEvents.subscriberCount;
  const subscriber = new Subscriber(t.baseUrl, await connectionParamsOf(merchant)).subscribe(query);
  open.push(subscriber);
  await eventually(() => subscriber.failure !== undefined, 'the subscription to be refused');
  expect(Array.isArray(subscriber.failure)).toBe(true);
  expect(subscriber.results).toEqual([]);
  expect(t.app.services.paymentEvents.subscriberCount).toBe(subscriptions);
  // Refused during validation: not one payment was read.
  expect(t.queries.slice(before).some((sql) => sql.includes('from "payment"'))).toBe(false);
  return subscriber.failure as GraphQLFormattedError[];
}

async function expectRefused(query: string, message: RegExp): Promise<void> {
  const errors = await refusal(query);
  expect(errors).toContainEqual(expect.objectContaining({ message: expect.stringMatching(message) }));
}

describe('graph limits on graphql-ws', () => {
  test('depth at the limit is served, one past it is refused', async () => {
    expect(await expectServed(DEPTH_5)).toEqual({ payment: { aggregate: { capturedAmount: { value: 0 } } } });
    await expectRefused(DEPTH_6, /^Query depth 6 exceeds the limit of 5$/);
  });

  test('depth counts through fragments', async () => {
    const viaFragment =
      'subscription { paymentEvents { ...Deep } } fragment Deep on PaymentEventNotification { payment { events(first: 1) { edges { node { reference } } } } }';
    await expectRefused(viaFragment, /^Query depth 6 exceeds the limit of 5$/);
  });

  test('aliases at the limit are served, one past it is refused', async () => {
    const notification = await expectServed(subscriptionWithAliases(30));
    expect(Object.keys(notification)).toHaveLength(29);
    expect(notification.a28).toBe('PaymentEventNotification');
    const errors = await refusal(subscriptionWithAliases(31));
    // Only the alias limit: the document costs 31, at the cost limit.
    expect(errors.map((e) => e.message)).toEqual(['31 aliases exceed the limit of 30']);
  });

  test('cost at the limit is served, one page more is refused', async () => {
    expect(await expectServed(subscriptionOfPageSize(14))).toEqual({ payment: { events: { edges: [{ cursor: expect.any(String) }] } } });
    await expectRefused(subscriptionOfPageSize(15), /^Query cost 33 exceeds the limit of 31$/);
  });

  test('a page size given as a variable counts as the largest page', async () => {
    const subscriber = new Subscriber(t.baseUrl, await connectionParamsOf(merchant)).subscribe(
      'subscription($n: Int!) { paymentEvents { payment { events(first: $n) { edges { cursor } } } } }',
      { n: 1 },
    );
    open.push(subscriber);
    await eventually(() => subscriber.failure !== undefined, 'the subscription to be refused');
    expect(describeFailure(subscriber.failure)).toMatch(/Query cost 203 exceeds the limit of 31/);
  });

  test.each([
    ['depth', DEPTH_6],
    ['aliases', subscriptionWithAliases(31)],
    ['cost', subscriptionOfPageSize(15)],
  ])('one past the %s limit is refused with the same code as on POST /graphql', async (_limit, query) => {
    // Validation precedes execution on HTTP too, so the very same document shows HTTP's answer.
    const http = await merchant.graphql(query);
    expect(http.status).toBe(400);
    const httpCodes = (http.body.errors as GraphQLFormattedError[]).map((e) => e.extensions?.code);
    expect(httpCodes).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect((await refusal(query)).map((e) => e.extensions?.code)).toEqual(httpCodes);
  });
});

test('a subscription sent to POST /graphql is refused with 400, pointing to the socket', async () => {
  const res = await merchant.graphql('subscription { paymentEvents { event { reference } } }');
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual([
    expect.objectContaining({ message: expect.stringContaining('graphql-ws'), extensions: { code: 'BAD_REQUEST' } }),
  ]);
});
