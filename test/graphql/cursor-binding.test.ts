import { MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** issue 22/24: one signed cursor, bound to its list, its filter and its parent. */
let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const EVENTS = `query($r: String!, $after: String) { payment(reference: $r) {
  events(first: 1, after: $after) { edges { node { name } } pageInfo { endCursor } } } }`;

test("a payment's events cursor pages on for its payment and is refused for another payment", async () => {
  const [a, b] = [await merchant.authorizedPayment(1_000), await merchant.authorizedPayment(1_000)];
  const first = await merchant.graphql(EVENTS, { r: a });
  expect(first.body.errors).toBeUndefined();
  const after = first.body.data.payment.events.pageInfo.endCursor;
  const next = await merchant.graphql(EVENTS, { r: a, after });
  expect(next.body.errors).toBeUndefined();
  expect(next.body.data.payment.events.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['AUTHORIZED']);
  const crossed = await merchant.graphql(EVENTS, { r: b, after });
  expect(crossed.body.errors).toEqual([
    expect.objectContaining({
      message: 'after is not a cursor of this connection',
      extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
    }),
  ]);
});

test('a cursor of one list is refused by another list, even where both are ordered by id', async () => {
  const reference = await merchant.authorizedPayment(1_000);
  const first = await merchant.graphql(EVENTS, { r: reference });
  const after = first.body.data.payment.events.pageInfo.endCursor;
  const other = await merchant.graphql('query($after: String) { events(first: 1, after: $after) { edges { node { eventId } } } }', {
    after,
  });
  expect(other.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
});
