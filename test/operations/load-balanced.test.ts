import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@vippsmobilepay/sdk';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { MERCHANT_A, MerchantClient } from '../support/merchant-client.js';
import { buildService, ServiceProcess, type BuiltService } from '../support/service-process.js';
import { connectionParamsOf, graphqlWsUrl } from '../support/subscriber.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Issue 21 point 6: the load-balanced shape without Docker. Two instances of the built service on one PostgreSQL
 * database, Debian's HAProxy in front of them with the repository's own `deploy/haproxy/haproxy.cfg`, and a payment
 * flow through it with the official SDK. The instance holding the subscriber gets SIGTERM between create and
 * approve: the flow completes through the other, every webhook is delivered, and the subscriber reconnects through
 * the balancer and receives the events after it; a subscriber resuming from the stream's start catches up on every
 * event once. PostgreSQL only (two processes cannot share PGlite); test mode, so
 * force approve stands in for the wallet user.
 */
const describeOnPostgres = onPostgres ? describe : describe.skip;
const SDK_HOST = 'https://apitest.vipps.no';
const EVENTS = ['created', 'authorized', 'captured'].map((name) => `epayments.payment.${name}.v1`);

describeOnPostgres('two instances behind HAProxy', () => {
  let built: BuiltService;
  let database: TestDatabase;
  let certDir: string;
  let haproxy: ChildProcess | undefined;
  const instances: ServiceProcess[] = [];
  const webhooks = new WebhookReceiver();
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    built = await buildService();
    database = await createTestDatabase();
    certDir = await mkdtemp(join(tmpdir(), 'lb-cert-'));
  }, 300_000);
  afterAll(async () => {
    globalThis.fetch = realFetch;
    haproxy?.kill('SIGKILL');
    for (const instance of instances) await instance.kill();
    await webhooks.close();
    await database?.drop();
    await built?.remove();
    await rm(certDir, { recursive: true, force: true });
  });

  test('a payment flow completes while the subscriber instance drains', async () => {
    await webhooks.start();
    const metricsPorts = [await freePort(), await freePort()];
    const lbPort = await freePort();
    const env = (metricsPort: number) => ({
      DATABASE_URL: database.databaseUrl!,
      PAYGRAPH_ENV: 'test',
      PUBLIC_URL: `http://127.0.0.1:${lbPort}`,
      PAYGRAPH_LOG_REQUESTS: 'false',
      PAYGRAPH_JOB_INTERVAL_MS: '50',
      PAYGRAPH_RUN_JOBS: 'true',
      METRICS_PORT: String(metricsPort),
    });
    // One after the other: the first runs the migrations and the seed.
    instances.push(new ServiceProcess(built, env(metricsPorts[0]!)));
    const portA = await instances[0]!.listening;
    instances.push(new ServiceProcess(built, env(metricsPorts[1]!)));
    const portB = await instances[1]!.listening;

    const pem = join(certDir, 'lb.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(certDir, 'key.pem'),
        '-out',
        join(certDir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    await writeFile(pem, (await readFile(join(certDir, 'cert.pem'), 'utf8')) + (await readFile(join(certDir, 'key.pem'), 'utf8')));
    haproxy = spawn('haproxy', ['-db', '-f', join(process.cwd(), 'deploy/haproxy/haproxy.cfg')], {
      env: {
        PATH: process.env.PATH,
        PAYGRAPH_LB_BIND: `127.0.0.1:${await freePort()}`,
        PAYGRAPH_TLS_CERT: pem,
        PAYGRAPH_LB_PLAIN_BIND: `127.0.0.1:${lbPort}`,
        PAYGRAPH_GATEWAY_A: `127.0.0.1:${portA}`,
        PAYGRAPH_GATEWAY_B: `127.0.0.1:${portB}`,
      },
      stdio: 'ignore',
    });
    const lb = `http://127.0.0.1:${lbPort}`;
    await until(async () => (await realFetch(`${lb}/readyz`).catch(() => undefined))?.status === 200, 'the balancer to be ready');

    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      if (!request.url.startsWith(SDK_HOST)) return realFetch(request);
      const body = request.method === 'GET' ? undefined : await request.text();
      return realFetch(lb + request.url.slice(SDK_HOST.length), { method: request.method, headers: request.headers, body });
    };
    const sdk = Client({
      merchantSerialNumber: MERCHANT_A.msn,
      subscriptionKey: MERCHANT_A.subscriptionKey,
      useTestMode: true,
      retryRequests: false,
    });
    const ok = <T>(result: { ok: true; data: T } | { ok: false; error: unknown }): T => {
      if (!result.ok) throw new Error(`SDK call failed: ${JSON.stringify(result.error)}`);
      return result.data;
    };
    const token = ok(await sdk.auth.getToken(MERCHANT_A.clientId, MERCHANT_A.clientSecret)).access_token;

    const merchant = new MerchantClient(lb);
    const registered = await merchant.request('POST', '/webhooks/v1/webhooks', { url: webhooks.url('/lb'), events: EVENTS });
    expect(registered.status).toBe(201);
    webhooks.route('/lb', (registered.body as { secret: string }).secret);

    const reference = `lb-${randomUUID()}`;
    ok(
      await sdk.payment.create(token, {
        reference,
        amount: { currency: 'NOK', value: 10_000 },
        paymentMethod: { type: 'WALLET' },
        customer: { phoneNumber: '4791234567' },
        userFlow: 'WEB_REDIRECT',
        returnUrl: 'https://merchant.example/return',
      }),
    );

    // A subscriber through the balancer, reconnecting as graphql-ws clients do.
    let connections = 0;
    const seen: string[] = [];
    const subscriber = createClient({
      url: graphqlWsUrl(lb),
      webSocketImpl: WebSocket,
      connectionParams: await connectionParamsOf(merchant),
      retryAttempts: 10,
      retryWait: () => new Promise((resolve) => setTimeout(resolve, 200)),
      on: { connected: () => (connections += 1) },
    });
    subscriber.subscribe<{ paymentEvents: { event: { name: string } } }>(
      { query: `subscription { paymentEvents(reference: "${reference}") { event { name } } }` },
      { next: (result) => seen.push(result.data!.paymentEvents.event.name), error: () => undefined, complete: () => undefined },
    );
    await until(async () => connections === 1, 'the subscriber to connect');

    // SIGTERM the instance holding the subscriber, mid-flow.
    const holding = await Promise.all(metricsPorts.map((port) => openSubscriptions(port)));
    const victim = holding.findIndex((open) => open === 1);
    expect(victim).toBeGreaterThanOrEqual(0);
    const exitCode = instances[victim]!.terminate();
    await until(async () => connections === 2, 'the subscriber to reconnect through the balancer');
    expect(await exitCode).toBe(0);

    ok(await sdk.payment.forceApprove(token, reference, { customer: { phoneNumber: '4791234567' } }));
    ok(await sdk.payment.capture(token, reference, { modificationAmount: { currency: 'NOK', value: 10_000 } }));
    expect(ok(await sdk.payment.info(token, reference)).aggregate.capturedAmount).toEqual({ currency: 'NOK', value: 10_000 });

    await webhooks.waitFor(
      (received) =>
        EVENTS.every((name) =>
          received.some((r) => r.path === '/lb' && r.body.reference === reference && r.body.name === name.split('.')[2]!.toUpperCase()),
        ),
      'every webhook of the flow',
      30_000,
    );
    expect(webhooks.received.filter((r) => r.path === '/lb').every((r) => r.verified)).toBe(true);
    await until(async () => seen.includes('CAPTURED'), 'the reconnected subscriber to see the capture');
    await subscriber.dispose();

    // Catching up through the balancer after the drain: a subscriber that was listening to nothing resumes from the
    // start of the payment's stream and gets each of its events once, in order, from the outbox.
    const caughtUp: { name: string; eventId: string }[] = [];
    const catchUp = createClient({ url: graphqlWsUrl(lb), webSocketImpl: WebSocket, connectionParams: await connectionParamsOf(merchant) });
    catchUp.subscribe<{ paymentEvents: { event: { name: string; eventId: string } } }>(
      { query: `subscription { paymentEvents(reference: "${reference}", after: "0") { event { name eventId } } }` },
      { next: (result) => caughtUp.push(result.data!.paymentEvents.event), error: () => undefined, complete: () => undefined },
    );
    await until(async () => caughtUp.length >= 3, 'the resumed subscriber to catch up');
    expect(caughtUp.map((e) => e.name)).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);
    expect(caughtUp.map((e) => Number(e.eventId))).toEqual([...caughtUp.map((e) => Number(e.eventId))].sort((a, b) => a - b));
    await catchUp.dispose();
  }, 240_000);

  async function openSubscriptions(metricsPort: number): Promise<number> {
    const text = await (await realFetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return Number(/^paygraph_subscriptions_open (\d+)/m.exec(text)?.[1] ?? 0);
  }
});

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
