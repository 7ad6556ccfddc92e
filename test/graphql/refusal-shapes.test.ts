import WebSocket from 'ws';
import { toGlobalId } from '../../src/platform/graph/relay.js';
import { MerchantClient } from '../support/merchant-client.js';
import { connectionParamsOf, graphqlWsUrl } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * issue 35: a client learns why it was refused in the shape of the face it used. A body that is not JSON on POST
 * /graphql is answered as the graph answers (`errors` with a code), not as a REST problem; a graphql-ws socket
 * closed for a refusal says why in the close reason.
 */
let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp({ jobIntervalMs: 3_600_000 });
  merchant = new MerchantClient(t.baseUrl);
}, 60_000);
afterAll(() => t.close());

test('malformed JSON on POST /graphql is answered in the GraphQL error shape', async () => {
  for (const body of ['{"query": ', 'query { viewer { kind } }', '{"query": "{ viewer { kind } }",}']) {
    const res = await fetch(`${t.baseUrl}/graphql`, { method: 'POST', headers: await merchant.headers(), body });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      errors: [{ message: 'The request body is not valid JSON', extensions: { code: 'BAD_REQUEST', traceId: expect.any(String) } }],
    });
  }
});

// issue 32: a field that acts for one sales unit (`@salesUnit`) is refused by the admission, wherever the operation
// selects it, when the request names none: the 400 REST answers, before any resolver runs (a resolver's refusal would
// be a 200 with the principal-wide fields answered). `node(id:)` narrows by the id's type.
test('without a Merchant-Serial-Number, a field that acts for one sales unit is refused before anything runs', async () => {
  const { 'Merchant-Serial-Number': _msn, ...headers } = await merchant.headers();
  const graph = async (query: string) => {
    const res = await fetch(`${t.baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query }) });
    return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: { extensions: Record<string, unknown> }[] } };
  };
  const units = (payment: string) =>
    `{ viewer { merchant { salesUnits { edges { node { msn payments(first: 1) { edges { node { ${payment} } } } } } } } } }`;
  const wide = await graph(units('reference'));
  expect(wide.status).toBe(200);
  expect(wide.body.errors).toBeUndefined();
  const refusal = { code: 'BAD_REQUEST', details: [{ name: 'Merchant-Serial-Number', reason: 'The header is required' }] };
  for (const query of [
    units('reference webhookDeliveries(first: 1) { edges { cursor } }'),
    `{ viewer { kind } ...Unit } fragment Unit on Query { webhooks { id } }`,
  ]) {
    const res = await graph(query);
    expect(res.status).toBe(400);
    expect(res.body.errors?.map((e) => e.extensions)).toEqual([expect.objectContaining(refusal)]);
  }
  // The id's type is known only to the resolver: its finder narrows, and answers the field with the same refusal.
  const node = await graph(`{ node(id: "${toGlobalId('Payment', '00000000-0000-4000-8000-000000000000')}") { id } }`);
  expect(node.body.data).toEqual({ node: null });
  expect(node.body.errors?.map((e) => e.extensions.details)).toEqual([refusal.details]);
});

/**
 * Opens a socket asking for graphql-ws's subprotocol (or none), sends each message in turn once it is open, then
 * `afterAck` once the server acknowledged the connection, and reports how the server closed it.
 */
function closeOf(
  messages: readonly unknown[],
  subprotocol = true,
  afterAck: readonly unknown[] = [],
): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const socket = subprotocol ? new WebSocket(graphqlWsUrl(t.baseUrl), 'graphql-transport-ws') : new WebSocket(graphqlWsUrl(t.baseUrl));
    socket.once('error', reject);
    socket.once('open', () => {
      for (const message of messages) socket.send(JSON.stringify(message));
    });
    socket.on('message', (data: Buffer) => {
      if ((JSON.parse(data.toString()) as { type: string }).type !== 'connection_ack') return;
      for (const message of afterAck) socket.send(JSON.stringify(message));
    });
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
}

test('every refusal close of the graphql-ws socket carries a reason', async () => {
  const init = { type: 'connection_init', payload: await connectionParamsOf(merchant) };
  const subscribe = { id: '1', type: 'subscribe', payload: { query: 'subscription { paymentEvents { event { reference } } }' } };
  const closes = {
    badToken: await closeOf([{ type: 'connection_init', payload: { ...init.payload, Authorization: 'Bearer not-a-token' } }]),
    noCredentials: await closeOf([{ type: 'connection_init', payload: {} }]),
    invalidMessage: await closeOf([{ type: 'nonsense' }]),
    subscribeBeforeInit: await closeOf([subscribe]),
    twoInits: await closeOf([init, init]),
    sameIdTwice: await closeOf([init], true, [subscribe, subscribe]),
    noSubprotocol: await closeOf([init], false),
  };
  expect(Object.fromEntries(Object.entries(closes).map(([name, close]) => [name, close.code]))).toEqual({
    badToken: 4403,
    noCredentials: 4403,
    invalidMessage: 4400,
    subscribeBeforeInit: 4401,
    twoInits: 4429,
    sameIdTwice: 4409,
    noSubprotocol: 4406,
  });
  for (const [name, close] of Object.entries(closes)) expect([name, close.reason]).toEqual([name, expect.stringMatching(/\w/)]);
  // A refused connection_init says what the request front refused, as an HTTP request's 401 body does.
  expect(closes.badToken.reason).toMatch(/^Forbidden: .*token/i);
  expect(closes.noCredentials.reason).toMatch(/^Forbidden: ./);
});
