import { connect, type Socket } from 'node:net';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { MerchantClient } from '../support/merchant-client.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { connectionParamsOf, eventually, graphqlWsUrl } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * Issue 21 point 5: `/readyz` beside `/healthz`, and SIGTERM's graceful stop (`App.shutdown`, which main.ts calls on
 * the signal): no new connections, a request in flight answered (and told to close its connection), subscribers
 * closed with 1012 Service Restart so their clients reconnect elsewhere, `/readyz` 503 while draining.
 */
let t: TestApp;
let database: TestDatabase;
let closed = false;

beforeAll(async () => {
  // The database is this file's own, so it can be dropped after the app shut itself down.
  database = await createTestDatabase({ migrated: true });
  t = await startTestApp(database.databaseUrl ? { databaseUrl: database.databaseUrl } : {});
});
afterAll(async () => {
  if (!closed) await t.close();
  await database.drop();
});

test('ready: the database answers and every migration ran; alive is apart from it', async () => {
  const ready = await fetch(`${t.baseUrl}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ready' });
  expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
});

test('a graceful shutdown lets the request in flight finish, refuses new connections and sends subscribers elsewhere', async () => {
  const merchant = new MerchantClient(t.baseUrl);
  let connected: () => void = () => undefined;
  const acknowledged = new Promise<void>((resolve) => (connected = resolve));
  const closeCode = new Promise<number>((resolve) => {
    void connectionParamsOf(merchant).then((connectionParams) => {
      const client = createClient({
        url: graphqlWsUrl(t.baseUrl),
        webSocketImpl: WebSocket,
        connectionParams,
        lazy: false,
        retryAttempts: 0,
        onNonLazyError: () => undefined,
        on: { connected: () => connected(), closed: (event) => resolve((event as { code: number }).code) },
      });
      client.subscribe(
        { query: 'subscription { paymentEvents(reference: "shutdown-test") { event { name } } }' },
        {
          next: () => undefined,
          error: () => undefined,
          complete: () => undefined,
        },
      );
    });
  });
  await acknowledged;

  // A request in flight: its body is not all sent when the shutdown begins.
  const port = Number(new URL(t.baseUrl).port);
  const socket = await open(port);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  const answered = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  socket.write('GET /readyz HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345');
  // Another, to a route that answers 200 while draining, on a keep-alive connection: it is told to close too, and
  // the connection ends with its answer (before, it stayed open until the client closed it or the deadline cut it).
  const keptAlive = await open(port);
  let keptAliveAnswer = '';
  keptAlive.on('data', (chunk: Buffer) => (keptAliveAnswer += chunk.toString()));
  const keptAliveEnded = new Promise<void>((resolve) => keptAlive.once('end', () => resolve()));
  keptAlive.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nContent-Length: 10\r\n\r\n12345');

  const shutdown = t.app.shutdown(10_000);
  closed = true;
  expect(await closeCode).toBe(1012);
  await expect(open(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

  socket.write('67890');
  await answered;
  expect(answer).toMatch(/^HTTP\/1\.1 503 /);
  expect(answer.toLowerCase()).toContain('connection: close');
  expect(answer).toContain('"reason":"draining"');
  keptAlive.write('67890');
  await keptAliveEnded;
  expect(keptAliveAnswer).toMatch(/^HTTP\/1\.1 200 /);
  expect(keptAliveAnswer.toLowerCase()).toContain('connection: close');
  await shutdown;
});

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

test(
  'a graceful shutdown cuts, at its deadline, the socket of a subscriber that stopped reading',
  async () => {
    // An app of its own: this test shuts it down too.
    const app = await startTestApp(database.databaseUrl ? { databaseUrl: database.databaseUrl } : {});
    const socket = new WebSocket(graphqlWsUrl(app.baseUrl), 'graphql-transport-ws');
    const messages: { type: string }[] = [];
    socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as { type: string }));
    const closed = new Promise<number>((resolve) => socket.once('close', (code: number) => resolve(code)));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: await connectionParamsOf(new MerchantClient(app.baseUrl)) }));
    await eventually(() => messages.some((m) => m.type === 'connection_ack'), 'the socket to be acknowledged');
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { paymentEvents { event { name } } }' } }));
    await eventually(() => app.app.services.events.subscriberCount > 0, 'the subscription to register');
    // The client stops reading: it never sees the server's close frame, so it never answers it.
    socket.pause();

    await app.app.shutdown(200);
    socket.resume();
    // The server's close frame (1012) was sent before the cut, so the client reports it once it reads again.
    expect(await closed).toBe(1012);
    // Before, the shutdown waited for ws's own 30 s close timer; this test's deadline is below it.
  },
  CONDITION_DEADLINE_MS,
);
