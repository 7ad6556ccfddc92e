import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import pg from 'pg';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/platform/clock.js';
// @ts-expect-error: a plain JavaScript sample for merchants, without type declarations.
import { followPaymentEvents } from '../../samples/resuming-subscriber/subscriber.mjs';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { MERCHANT_A, MerchantClient, newReference } from '../support/merchant-client.js';
import { connectionParamsOf } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { onPostgres } from '../support/test-database.js';

/**
 * Issue 35: the README's client pattern for frontend teams, `samples/resuming-subscriber/subscriber.mjs`, keeps every
 * event across a server restart, because it resubscribes with `after:` the last event it handled. graphql-ws's own
 * retry, which re-sends the first variables, loses what committed while the server was down: the second test shows it,
 * so the README's warning stays true.
 *
 * The clients reach the service through a TCP relay standing for the balancer: while the service restarts, the relay
 * refuses connections, so a payment made meanwhile (through the new instance, before the relay lets anyone in) has
 * committed while the subscriber had no socket, whatever the timing. One instance runs at a time: PGlite's data
 * directory is one process's.
 */
interface PaymentEventSeen {
  eventId: string;
  name: string;
  reference: string;
}

let first: TestApp;
let dataDir: string;
const later: App[] = [];
let current: Instance;
let relay: Relay;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'paygraph-resuming-'));
  first = await startTestApp(onPostgres ? {} : { dataDir });
  current = { app: first.app, url: first.baseUrl, port: Number(new URL(first.baseUrl).port) };
  relay = await Relay.start(current.port);
});

afterAll(async () => {
  await relay?.close();
  for (const app of later) await app.close().catch(() => undefined);
  await first?.close().catch(() => undefined);
  const url = first?.app.services.config.databaseUrl;
  if (onPostgres && url) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
    await client.end();
  }
  await rm(dataDir, { recursive: true, force: true });
});

interface Instance {
  app: App;
  port: number;
  url: string;
}

/** Restarts the service: the relay refuses clients, the instance closes, and a new one opens the same database. */
async function restart(): Promise<Instance> {
  relay.accepting = false;
  await current.app.close();
  const config = { ...loadConfig({ PAYGRAPH_LOG_REQUESTS: 'false' }), databaseUrl: first.app.services.config.databaseUrl, dataDir };
  const app = await createApp(config, { clock: new ManualClock(new Date()) });
  later.push(app);
  const port = await app.listen(0);
  current = { app, port, url: `http://127.0.0.1:${port}` };
  app.services.config.publicUrl = current.url;
  return current;
}

/** Lets clients in again, to the instance that now serves. */
function reopen(): void {
  relay.upstream = current.port;
  relay.accepting = true;
}

/** A TCP relay to the instance that serves; while not accepting, it closes every connection it is offered. */
class Relay {
  accepting = true;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    public upstream: number,
  ) {}

  static async start(upstream: number): Promise<Relay> {
    const server = createServer();
    const relay = new Relay(server, upstream);
    server.on('connection', (client) => relay.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  private accept(client: Socket): void {
    if (!this.accepting) return void client.destroy();
    const service = createConnection(this.upstream, '127.0.0.1');
    for (const socket of [client, service]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(service).pipe(client);
    client.on('close', () => service.destroy());
    service.on('close', () => client.destroy());
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function until(what: string, holds: () => boolean): Promise<void> {
  for (const deadline = Date.now() + CONDITION_DEADLINE_MS; !holds(); await new Promise((resolve) => setTimeout(resolve, 25))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

const credentials = {
  clientId: MERCHANT_A.clientId,
  clientSecret: MERCHANT_A.clientSecret,
  subscriptionKey: MERCHANT_A.subscriptionKey,
  msn: MERCHANT_A.msn,
};

test('the sample resumes after a server restart with every event once, in order', async () => {
  const merchant = new MerchantClient(relay.url);
  const before = newReference('before-restart');
  expect((await merchant.createPayment({ reference: before })).status).toBe(201);
  const { eventId: start } = await lastEventOf(merchant, before);

  const seen: PaymentEventSeen[] = [];
  let reconnects = 0;
  const controller = new AbortController();
  const following = followPaymentEvents({
    baseUrl: relay.url,
    credentials,
    after: start,
    onEvent: (event: PaymentEventSeen) => seen.push(event),
    onReconnect: () => reconnects++,
    signal: controller.signal,
  });
  try {
    const live = newReference('live');
    expect((await merchant.createPayment({ reference: live })).status).toBe(201);
    await until('the live event', () => seen.some((e) => e.reference === live));

    const served = new MerchantClient((await restart()).url);
    await until('the subscriber to notice the restart', () => reconnects > 0);
    const missed = newReference('missed');
    expect((await served.createPayment({ reference: missed })).status).toBe(201);
    expect((await served.forceApprove(missed)).status).toBe(200);
    reopen();
    await until('the missed events', () => seen.filter((e) => e.reference === missed).length === 2);
    const after = newReference('after-restart');
    expect((await served.createPayment({ reference: after })).status).toBe(201);
    await until('the event after the restart', () => seen.some((e) => e.reference === after));

    expect(seen.map((e) => `${e.reference} ${e.name}`)).toEqual([
      `${live} CREATED`,
      `${missed} CREATED`,
      `${missed} AUTHORIZED`,
      `${after} CREATED`,
    ]);
    expect(new Set(seen.map((e) => e.eventId)).size).toBe(seen.length);
  } finally {
    controller.abort();
    await following;
  }
});

test("graphql-ws's own retry re-sends the first variables and loses what committed while the server was down", async () => {
  const merchant = new MerchantClient(relay.url);
  const seen: string[] = [];
  const naive = createClient({
    url: `${relay.url.replace(/^http/, 'ws')}/graphql`,
    connectionParams: () => connectionParamsOf(merchant),
    retryAttempts: Infinity,
    shouldRetry: () => true,
    retryWait: () => new Promise((resolve) => setTimeout(resolve, 100)),
  });
  try {
    await until('the sample to let go', () => current.app.services.events.subscriberCount === 0);
    naive.subscribe<{ paymentEvents: { event: { reference: string } } }>(
      { query: 'subscription { paymentEvents { event { reference } } }' },
      { next: (r) => seen.push(r.data!.paymentEvents.event.reference), error: () => undefined, complete: () => undefined },
    );
    await until('the subscription to register', () => current.app.services.events.subscriberCount > 0);
    const live = newReference('naive-live');
    expect((await merchant.createPayment({ reference: live })).status).toBe(201);
    await until('the live event', () => seen.includes(live));

    const served = await restart();
    const missed = newReference('naive-missed');
    expect((await new MerchantClient(served.url).createPayment({ reference: missed })).status).toBe(201);
    reopen();
    await until('the retried subscription to register', () => served.app.services.events.subscriberCount > 0);
    const after = newReference('naive-after');
    expect((await merchant.createPayment({ reference: after })).status).toBe(201);
    await until('the event after the restart', () => seen.includes(after));
    expect(seen).toEqual([live, after]);
  } finally {
    await naive.dispose();
  }
});

async function lastEventOf(merchant: MerchantClient, reference: string): Promise<{ eventId: string }> {
  const res = await merchant.graphql('query($r: String!) { payment(reference: $r) { events { edges { node { eventId } } } } }', {
    r: reference,
  });
  const edges = res.body.data.payment.events.edges as { node: { eventId: string } }[];
  return edges.at(-1)!.node;
}
