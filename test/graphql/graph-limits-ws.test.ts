import { defaultQueryLimits } from '../../src/config.js';
import type { GraphQLFormattedError } from 'graphql';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { connectionParamsOf, describeFailure, eventually, Subscriber } from '../support/subscriber.js';
import { fragmentFanOut } from '../support/fragment-fan-out.js';
import { readsPayments } from '../support/sql-log.js';
import { startProductionApp, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The graph's depth, alias and cost limits on graphql-ws, at each limit and one past it, as graph-limits.test.ts
 * does on HTTP. The same small limits as there, so both faces are held to the same numbers.
 */
const limits = { ...defaultQueryLimits, maxDepth: 5, maxAliases: 30, maxCost: 31 };

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
  await eventually(() => t.app.services.events.subscriberCount === 0, 'subscriptions to be released');
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

/** Depth 5; costs 3 + 14 * 2 = 31, the limit (paymentEvents 1 + payment 1 + events 1 + first * (edges 1 + cursor 1)). */
const COST_31 = 'subscription { paymentEvents { payment { events(first: 14) { edges { cursor } } } } }';
/** The same and one scalar: exactly one past the limit. */
const COST_32 = 'subscription { paymentEvents { __typename payment { events(first: 14) { edges { cursor } } } } }';

type Notification = Record<string, Record<string, unknown>>;

/**
 * Subscribes, waits until the server holds the subscription, creates a payment and returns its notification.
 * `readsPayment`: whether the notification selects the payment, which the matcher `refusal` relies on must then
 * see read (creating a payment only inserts).
 */
async function expectServed(query: string, readsPayment: boolean): Promise<Record<string, unknown>> {
  const before = t.app.services.events.subscriberCount;
  const subscriber = new Subscriber<Notification>(t.baseUrl, await connectionParamsOf(merchant)).subscribe(query);
  open.push(subscriber);
  await eventually(
    () => subscriber.failure !== undefined || t.app.services.events.subscriberCount > before,
    'the subscription to register',
  );
  if (subscriber.failure !== undefined) throw new Error(`subscription refused: ${describeFailure(subscriber.failure)}`);
  const statementsBefore = t.queries.length;
  expect((await merchant.createPayment({ reference: newReference() })).status).toBe(201);
  const [result] = await subscriber.waitFor(1);
  expect(result!.errors).toBeUndefined();
  expect(readsPayments(t.queries.slice(statementsBefore))).toBe(readsPayment);
  // One root field, under its alias if it has one.
  return Object.values(result!.data)[0]!;
}

/** The operation's `error` message; no subscription was added and no payment was read. */
async function refusal(query: string): Promise<GraphQLFormattedError[]> {
  const before = t.queries.length;
  const subscriptions = t.app.services.events.subscriberCount;
  const subscriber = new Subscriber(t.baseUrl, await connectionParamsOf(merchant)).subscribe(query);
  open.push(subscriber);
  await eventually(() => subscriber.failure !== undefined, 'the subscription to be refused');
  expect(Array.isArray(subscriber.failure)).toBe(true);
  expect(subscriber.results).toEqual([]);
  expect(t.app.services.events.subscriberCount).toBe(subscriptions);
  // Refused during validation: not one payment was read.
  expect(readsPayments(t.queries.slice(before))).toBe(false);
  return subscriber.failure as GraphQLFormattedError[];
}

/** Refused with exactly this one error. */
async function expectRefused(query: string, message: RegExp): Promise<void> {
  const errors = await refusal(query);
  expect(errors).toEqual([expect.objectContaining({ message: expect.stringMatching(message) })]);
}

describe('graph limits on graphql-ws', () => {
  test('depth at the limit is served, one past it is refused', async () => {
    expect(await expectServed(DEPTH_5, true)).toEqual({ payment: { aggregate: { capturedAmount: { value: 0 } } } });
    await expectRefused(DEPTH_6, /^Query depth 6 exceeds the limit of 5$/);
  });

  test('depth counts through fragments', async () => {
    const viaFragment =
      'subscription { paymentEvents { ...Deep } } fragment Deep on PaymentEventNotification { payment { events(first: 1) { edges { node { reference } } } } }';
    await expectRefused(viaFragment, /^Query depth 6 exceeds the limit of 5$/);
  });

  test('aliases at the limit are served, one past it is refused', async () => {
    const notification = await expectServed(subscriptionWithAliases(30), false);
    expect(Object.keys(notification)).toHaveLength(29);
    expect(notification.a28).toBe('PaymentEventNotification');
    const errors = await refusal(subscriptionWithAliases(31));
    // Only the alias limit: the document costs 31, at the cost limit.
    expect(errors.map((e) => e.message)).toEqual(['31 aliases exceed the limit of 30']);
  });

  test('cost at the limit is served, one past it is refused', async () => {
    expect(await expectServed(COST_31, true)).toEqual({ payment: { events: { edges: [{ cursor: expect.any(String) }] } } });
    expect((await refusal(COST_32)).map((e) => e.message)).toEqual(['Query cost 32 exceeds the limit of 31']);
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

  test('the 24-level fragment fan-out is refused for its cost, as a query or a subscription', async () => {
    await expectRefused(fragmentFanOut(24), /^Query cost 16777216 exceeds the limit of 31$/);
    await expectRefused(fragmentFanOut(24, 'subscription'), /^Query cost 33554432 exceeds the limit of 31$/);
  });

  test('a document past the byte cap is refused before it is parsed', async () => {
    const errors = await refusal(`subscription { paymentEvents { __typename } }${' '.repeat(defaultQueryLimits.maxDocumentBytes)}`);
    expect(errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'DOCUMENT_TOO_LARGE' }) })]);
  });

  test.each([
    ['depth', DEPTH_6],
    ['aliases', subscriptionWithAliases(31)],
    ['cost', COST_32],
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

describe('production hides the schema on graphql-ws too', () => {
  let prod: TestApp;
  let client: MerchantClient;
  beforeAll(async () => {
    // Its jobs wait an hour too: nothing here is time-based work, and an idle app's ticks cost CPU in this worker.
    prod = await startProductionApp({ jobIntervalMs: 3_600_000 });
    client = new MerchantClient(prod.baseUrl);
  });
  afterAll(() => prod.close());

  /**
   * The errors the socket answered with: an invalid document, and a variable that does not fit its type, get an
   * `error` message before the operation starts, never a `next` result.
   */
  async function refusedIn(app: TestApp, as: MerchantClient, query: string, variables: Record<string, unknown> = {}) {
    const subscriber = new Subscriber(app.baseUrl, await connectionParamsOf(as)).subscribe(query, variables);
    open.push(subscriber);
    await eventually(() => subscriber.failure !== undefined || subscriber.results.length > 0, 'the subscription to be refused');
    expect(subscriber.results).toEqual([]);
    return subscriber.failure as GraphQLFormattedError[];
  }

  const TYPO = 'subscription { paymentEvents { paymnt { reference } } }';
  const ENUM_TYPO = 'subscription { paymentEvents(names: [CAPTURD]) { event { reference } } }';
  const INTROSPECTION = 'query { __schema { types { name } } }';

  test('a field typo gets no suggestion in production, and gets one in the test environment', async () => {
    const [prodError] = await refusedIn(prod, client, TYPO);
    expect(prodError!.message).toBe('Cannot query field "paymnt" on type "PaymentEventNotification".');
    expect(prodError!.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    // The same document where suggestions are on: the assertion above would see one.
    const [testError] = await refusedIn(t, merchant, TYPO);
    expect(testError!.message).toMatch(/Did you mean "payment"\?$/);
  });

  test('an enum value typo gets no suggestion in production, in the document or in a variable', async () => {
    const [literal] = await refusedIn(prod, client, ENUM_TYPO);
    expect(literal!.message).not.toMatch(/Did you mean/);
    expect(literal!.message).toMatch(/CAPTURD/);
    const query = 'subscription($n: [PaymentEventName!]) { paymentEvents(names: $n) { event { reference } } }';
    const [variable] = await refusedIn(prod, client, query, { n: ['CAPTURD'] });
    // The code POST /graphql gives a variable that does not fit its type.
    expect(variable!.extensions?.code).toBe('BAD_USER_INPUT');
    expect(variable!.message).toMatch(/CAPTURD/);
    expect(variable!.message).not.toMatch(/Did you mean/);
    const [inTest] = await refusedIn(t, merchant, query, { n: ['CAPTURD'] });
    expect(inTest!.message).toMatch(/Did you mean the enum value "CAPTURED"\?$/);
  });

  test('introspection is refused in production by the same rule as on POST /graphql', async () => {
    // Introspection fields exist only on Query, which the socket does not serve; a refusal names introspection only
    // where it is off, so validation, not the later "send queries to POST", is what stops it.
    const errors = await refusedIn(prod, client, INTROSPECTION);
    expect(errors).toContainEqual({
      message: 'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
      locations: expect.any(Array),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    const http = await client.graphql(INTROSPECTION);
    expect(http.status).toBe(400);
    expect(http.body.errors.map((e: GraphQLFormattedError) => e.message)).toEqual(errors.map((e) => e.message));
    const inTest = await refusedIn(t, merchant, INTROSPECTION);
    expect(inTest.map((e) => e.extensions?.code)).toEqual(['BAD_REQUEST']);
  });
});
