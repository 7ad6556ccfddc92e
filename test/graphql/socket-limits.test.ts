import WebSocket from 'ws';
import { loadConfig } from '../../src/config.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { connectionParamsOf, eventually, graphqlWsUrl, Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** What one graphql-ws socket may hold (issue 20, point 3): a frame, the wait for `connection_init`, subscriptions. */
let t: TestApp;
let merchant: MerchantClient;

const MAX_SUBSCRIPTIONS = 2;

beforeAll(async () => {
  const socketLimits = { ...loadConfig({}).socketLimits, connectionInitWaitMs: 3_000, maxSubscriptions: MAX_SUBSCRIPTIONS };
  t = await startTestApp({ socketLimits });
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

/** A bare graphql-transport-ws socket: every message it receives, and how it closed. */
class RawSocket {
  readonly messages: { type: string; id?: string; payload?: any }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<void>;
  private readonly socket: WebSocket;

  constructor(baseUrl: string) {
    this.socket = new WebSocket(graphqlWsUrl(baseUrl), 'graphql-transport-ws');
    this.socket.on('error', () => undefined);
    this.socket.on('message', (data: Buffer) => this.messages.push(JSON.parse(data.toString()) as { type: string }));
    this.opened = new Promise((resolve) => this.socket.once('open', () => resolve()));
    this.closed = new Promise((resolve) => this.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  async init(payload: Record<string, unknown>): Promise<void> {
    await this.opened;
    this.send({ type: 'connection_init', payload });
    await this.until((m) => m.type === 'connection_ack');
  }

  async until(found: (message: RawSocket['messages'][number]) => boolean): Promise<RawSocket['messages'][number]> {
    for (;;) {
      const message = this.messages.find(found);
      if (message) return message;
      const closed = await Promise.race([this.closed, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10))]);
      if (closed) throw new Error(`socket closed ${closed.code} ${closed.reason} before the message arrived`);
    }
  }

  close(): void {
    this.socket.close();
  }
}

/** A subscribe message whose JSON is about `bytes` long. */
function frameOf(bytes: number): string {
  return JSON.stringify({
    id: 'big',
    type: 'subscribe',
    payload: { query: `# ${'x'.repeat(bytes)}\nsubscription { paymentEvents { __typename } }` },
  });
}

/** The service still serves HTTP and the socket after a refusal. */
async function expectServiceFine(): Promise<void> {
  expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
  const before = t.app.services.events.subscriberCount;
  const subscriber = new Subscriber(t.baseUrl, await connectionParamsOf(merchant)).subscribe(
    'subscription { paymentEvents { event { name } } }',
  );
  try {
    await eventually(() => t.app.services.events.subscriberCount > before, 'the subscription to register');
    expect((await merchant.createPayment({ reference: newReference() })).status).toBe(201);
    expect((await subscriber.waitFor(1))[0]!.data).toEqual({ paymentEvents: { event: { name: 'CREATED' } } });
  } finally {
    await subscriber.close();
  }
}

test('a 2 MiB frame before connection_init closes the socket (1009), and the service is fine', async () => {
  const socket = new RawSocket(t.baseUrl);
  await socket.opened;
  socket.send(frameOf(2 * 1024 * 1024));
  expect((await socket.closed).code).toBe(1009);
  expect(socket.messages).toEqual([]);
  await expectServiceFine();
});

test('a 2 MiB frame after connection_init closes the socket (1009), and the service is fine', async () => {
  const socket = new RawSocket(t.baseUrl);
  await socket.init(await connectionParamsOf(merchant));
  socket.send(frameOf(2 * 1024 * 1024));
  expect((await socket.closed).code).toBe(1009);
  expect(socket.messages.map((m) => m.type)).toEqual(['connection_ack']);
  await expectServiceFine();
});

test('a frame under the cap is read as usual', async () => {
  const socket = new RawSocket(t.baseUrl);
  await socket.init(await connectionParamsOf(merchant));
  socket.send(frameOf(512 * 1024));
  // Read and refused for its size as a document, on an open socket.
  const error = await socket.until((m) => m.type === 'error');
  expect(error.payload).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'DOCUMENT_TOO_LARGE' }) })]);
  socket.close();
});

test('a socket that sends no connection_init is closed (4408)', async () => {
  const socket = new RawSocket(t.baseUrl);
  await socket.opened;
  expect(await socket.closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
});

test('a connection_init with a bad credential closes the socket (4403)', async () => {
  const socket = new RawSocket(t.baseUrl);
  await socket.opened;
  socket.send({ type: 'connection_init', payload: { ...(await connectionParamsOf(merchant)), Authorization: 'Bearer forged' } });
  expect((await socket.closed).code).toBe(4403);
});

test('a socket holds a limited number of subscriptions; the extra one is refused, and a completed one frees its place', async () => {
  const socket = new RawSocket(t.baseUrl);
  await socket.init(await connectionParamsOf(merchant));
  const subscribe = (id: string) =>
    socket.send({ id, type: 'subscribe', payload: { query: 'subscription { paymentEvents { __typename } }' } });
  const before = t.app.services.events.subscriberCount;
  for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) subscribe(`s${i}`);
  subscribe('extra');
  const refused = await socket.until((m) => m.id === 'extra');
  expect(refused).toEqual({
    id: 'extra',
    type: 'error',
    payload: [
      expect.objectContaining({
        message: expect.stringMatching(/at most 2 subscriptions/),
        extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
      }),
    ],
  });
  await eventually(() => t.app.services.events.subscriberCount === before + MAX_SUBSCRIPTIONS, 'two subscriptions');
  socket.send({ id: 's0', type: 'complete' });
  await eventually(() => t.app.services.events.subscriberCount === before + MAX_SUBSCRIPTIONS - 1, 's0 to complete');
  subscribe('next');
  await eventually(() => t.app.services.events.subscriberCount === before + MAX_SUBSCRIPTIONS, 'next to register');
  expect((await merchant.createPayment({ reference: newReference() })).status).toBe(201);
  // The held subscriptions and the one that took s0's place each get the event; the refused one nothing.
  await socket.until((m) => m.id === 'next' && m.type === 'next');
  await socket.until((m) => m.id === 's1' && m.type === 'next');
  expect(socket.messages.filter((m) => m.id === 'extra')).toHaveLength(1);
  socket.close();
});
