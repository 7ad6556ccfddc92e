import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { jest } from '@jest/globals';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.js';
import { forkEm } from '../../src/platform/db/orm.js';
import type { OutboxEvent } from '../../src/platform/events/outbox-event.js';
import { MERCHANT_A, MerchantClient } from '../support/merchant-client.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { connectionParamsOf, eventually, graphqlWsUrl } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// What one socket may hold is bounded in bytes, across all its subscriptions: a client that stops reading is closed
// with a reason once more than that is unsent, its subscriptions end, and the memory returns once it is gone
// (issue 33, N4). Nothing here is timed: clients stop reading by pausing their TCP socket, events are committed until
// the service has ended their subscriptions, and the memory's return is seen after forced collections.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const MAX_UNSENT_BYTES = 512 * 1024;
const SOCKETS = 8;
const SUBSCRIPTIONS_PER_SOCKET = 20;

let t: TestApp;
let connectionParams: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp({
    socketLimits: { ...loadConfig({}).socketLimits, maxUnsentBytes: MAX_UNSENT_BYTES },
    // A client that stops reading never answers a ping either: keep-alive must not be what drops it here.
    subscriptionKeepAliveMs: 600_000,
  });
  connectionParams = await connectionParamsOf(new MerchantClient(t.baseUrl, MERCHANT_A));
});
afterAll(() => t.close());
afterEach(() => jest.restoreAllMocks());

/** About 2 KB of JSON per notification, so a few hundred events fill the kernel's buffers and then the bound. */
const LARGE = `subscription { paymentEvents { ${Array.from(
  { length: 20 },
  (_, i) => `e${i}: event { reference pspReference name amount { value currency } }`,
).join(' ')} } }`;

/** A graphql-transport-ws client whose TCP socket the test holds, to stop and resume its reading. */
class PausableClient {
  /** Messages other than `next`, which are only counted: the test must not hold what it measures. */
  readonly messages: { type: string; id?: string }[] = [];
  notifications = 0;
  readonly socket: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  tcp!: Socket;

  constructor() {
    this.socket = new WebSocket(graphqlWsUrl(t.baseUrl), 'graphql-transport-ws', {
      createConnection: ((options: { host: string; port: number }) =>
        (this.tcp = connect({ host: options.host, port: options.port }))) as never,
    });
    this.socket.on('error', () => undefined);
    this.socket.on('message', (data: Buffer) => {
      const { type, id } = JSON.parse(data.toString()) as { type: string; id?: string };
      if (type === 'next') this.notifications++;
      else this.messages.push({ type, id });
    });
    this.closed = new Promise((resolve) => this.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  async subscribe(count: number, query: string): Promise<void> {
    await new Promise((resolve) => this.socket.once('open', resolve));
    this.socket.send(JSON.stringify({ type: 'connection_init', payload: connectionParams }));
    await eventually(() => this.messages.some((message) => message.type === 'connection_ack'), 'the connection to be acknowledged');
    for (let i = 0; i < count; i++) this.socket.send(JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query } }));
  }
}

const subscribers = () => t.app.services.events.subscriberCount;
const openSockets = async () => (await t.app.metrics.registry.getSingleMetric('paygraph_subscriptions_open')!.get()).values[0]!.value;

/** Heap and buffers in use after collecting garbage, and after weakly held entries were let go. */
async function memoryInUse(): Promise<number> {
  await collectGarbageAndSettle();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

async function collectGarbageAndSettle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    collectGarbage();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** How many of the objects are still reachable after up to `rounds` collections (each with its turns to settle). */
async function stillReachable(objects: WeakRef<object>[], rounds = 10): Promise<number> {
  for (let round = 0; round < rounds && objects.some((ref) => ref.deref()); round++) await collectGarbageAndSettle();
  return objects.filter((ref) => ref.deref()).length;
}

/** Commits batches of events until the service has ended every subscription but the test's own listener's. */
async function commitUntilSubscriptionsEnd(prefix: string, listening: number): Promise<void> {
  let published: string | undefined;
  const unsubscribe = t.app.services.events.subscribe({ msn: '123456', streamType: 'payment' }, (event: OutboxEvent) => {
    published = (event.payload as { reference: string }).reference;
  });
  try {
    for (let batch = 0; subscribers() > listening + 1; batch++) {
      if (batch === 100) throw new Error(`the subscriptions did not end after ${batch * 50} events`);
      await commitCreatedEvents(forkEm(t.app.services.orm), `${prefix}${batch}-`, 50);
      await eventually(() => published === `${prefix}${batch}-50`, `batch ${batch} to be published`);
    }
  } finally {
    unsubscribe();
  }
}

/**
 * Sockets that stop reading while events come, until the service closed them, then read again until they are gone.
 * Says how many bytes each socket had unsent when it was closed, from the service's log line.
 */
async function slowReadersRound(
  prefix: string,
  listening: number,
  sockets: number,
  stdout: { mock: { calls: unknown[][] } },
): Promise<number[]> {
  const clients = Array.from({ length: SOCKETS }, () => new PausableClient());
  await Promise.all(clients.map((client) => client.subscribe(SUBSCRIPTIONS_PER_SOCKET, LARGE)));
  await eventually(() => subscribers() === listening + SOCKETS * SUBSCRIPTIONS_PER_SOCKET, 'every subscription');
  for (const client of clients) client.tcp.pause();
  await commitUntilSubscriptionsEnd(prefix, listening);
  for (const client of clients) client.tcp.resume();
  for (const client of clients) {
    expect(await client.closed).toEqual({
      code: 1013,
      reason: `Too far behind: more than ${MAX_UNSENT_BYTES} bytes unsent; reconnect and resume`,
    });
  }
  await eventually(async () => (await openSockets()) === sockets, 'the service to drop the sockets');
  const closings = stdout.mock.calls
    .map(([chunk]) => String(chunk))
    .filter((line) => line.includes('"subscriber socket closed: it stopped reading"'))
    .map((line) => JSON.parse(line) as { level: string; unsentBytes: number; maxUnsentBytes: number });
  for (const closing of closings) expect(closing).toMatchObject({ level: 'info', maxUnsentBytes: MAX_UNSENT_BYTES });
  return closings.map((closing) => closing.unsentBytes);
}

test('sockets that stop reading are closed with a reason past the bound, and the memory they held returns', async () => {
  const stderr = jest.spyOn(process.stderr, 'write');
  const consoleError = jest.spyOn(console, 'error');
  const stdout = jest.spyOn(process.stdout, 'write');
  const listening = subscribers();
  const sockets = await openSockets();
  // A first round, so what the service allocates once (code, pools, caches) is in the baseline.
  await slowReadersRound('first-', listening, sockets, stdout);
  stdout.mockClear();
  const baseline = await memoryInUse();

  // The service's end of each TCP connection, held weakly here. Its ws socket, its writer and its subscriptions' outlets
  // all reach it, so it is collected only once the service keeps none of them.
  const serverSockets: WeakRef<object>[] = [];
  const onUpgrade = (_request: unknown, socket: object) => serverSockets.push(new WeakRef(socket));
  t.app.server.on('upgrade', onUpgrade);
  const unsent = await slowReadersRound('second-', listening, sockets, stdout);
  t.app.server.off('upgrade', onUpgrade);
  // Each socket was closed once it had more than the bound unsent (what the kernel's buffers did not take).
  expect(unsent).toHaveLength(SOCKETS);
  for (const bytes of unsent) expect(bytes).toBeGreaterThan(MAX_UNSENT_BYTES);
  expect(serverSockets).toHaveLength(SOCKETS);
  expect(await stillReachable(serverSockets)).toBe(0);

  // Nor are the bytes they had unsent kept anywhere else (a socket's own queue is let go when it is destroyed). The
  // process's heap between rounds moves by a few MiB either way whatever the sockets do (-3.4 to +4.2 MiB seen with four
  // sockets and 9.8 MiB unsent, where a bound of 2 MiB failed on CI), so eight sockets leave about 19 MiB unsent, and
  // what is left must be under half of that.
  const left = (await memoryInUse()) - baseline;
  const held = unsent.reduce((sum, bytes) => sum + bytes, 0);
  console.log(
    `${Math.round(held / 1024)} KiB unsent when the sockets were closed; ${Math.round(left / 1024)} KiB more in use than before, once they are gone`,
  );
  expect(left).toBeLessThan(held / 2);
  expect(stderr).not.toHaveBeenCalled();
  expect(consoleError).not.toHaveBeenCalled();
});

test('a client that goes away while events come is one line of information, and no error', async () => {
  const stderr = jest.spyOn(process.stderr, 'write');
  const consoleError = jest.spyOn(console, 'error');
  const stdout = jest.spyOn(process.stdout, 'write');
  const listening = subscribers();
  const client = new PausableClient();
  await client.subscribe(5, LARGE);
  await eventually(() => subscribers() === listening + 5, 'the subscriptions');
  await commitCreatedEvents(forkEm(t.app.services.orm), 'before-leaving-', 20);
  await eventually(() => client.notifications === 100, 'the first events');
  client.tcp.destroy();
  await commitCreatedEvents(forkEm(t.app.services.orm), 'after-leaving-', 20);
  await eventually(() => subscribers() === listening, 'the subscriptions to end');
  const wentAway = () =>
    stdout.mock.calls.map(([chunk]) => String(chunk)).filter((line) => line.includes('"graphql-ws client went away without closing"'));
  await eventually(() => wentAway().length > 0, 'the line saying so');
  expect(wentAway().map((line) => JSON.parse(line) as unknown)).toEqual([
    { time: expect.any(String), level: 'info', msg: 'graphql-ws client went away without closing', code: 1006 },
  ]);
  expect(stderr).not.toHaveBeenCalled();
  expect(consoleError).not.toHaveBeenCalled();
});
