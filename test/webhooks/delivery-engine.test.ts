import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { callbackKinds, type CallbackKind } from '../../src/platform/delivery/callback-kinds.js';
import { RECEIVER_CONCURRENCY } from '../../src/platform/delivery/receiver-concurrency.js';
import { recordCallback } from '../../src/platform/delivery/record-callback.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * issue 23: webhooks and callbacks go through one delivery engine. Per receiver it keeps many streams in flight but
 * one delivery per stream at a time (so a stream's events arrive in order), caps what one receiver holds so a hung
 * one cannot hold back the others, whatever their kind, and applies each kind's own retry policy.
 */
const HUNG: CallbackKind = {
  name: 'test.engine-hung',
  timeoutMs: () => 60_000,
  retry: { maxAttempts: 1, firstDelayMs: 1_000, maxDelayMs: 1_000 },
};
const ONCE: CallbackKind = {
  name: 'test.engine-once',
  timeoutMs: () => 5_000,
  retry: { maxAttempts: 1, firstDelayMs: 1_000, maxDelayMs: 1_000 },
};
const THRICE: CallbackKind = {
  name: 'test.engine-thrice',
  timeoutMs: () => 5_000,
  retry: { maxAttempts: 3, firstDelayMs: 60_000, maxDelayMs: 60_000 },
};
const EVENTS = ['epayments.payment.created.v1', 'epayments.payment.authorized.v1', 'epayments.payment.captured.v1'];
/** How long the receiver holds each POST before answering: long enough that POSTs claimed together overlap. */
const HOLD_MS = 300;

type Row = Record<string, unknown>;

interface Post {
  path: string;
  body: any;
}

/**
 * A receiver that holds every POST `HOLD_MS` (or answers at once with the status its path is told to give), and
 * keeps track of what is in flight: per payment reference and in all.
 */
class CountingReceiver {
  readonly posts: Post[] = [];
  readonly statusOf = new Map<string, number | 'hang'>();
  maxInFlight = 0;
  maxInFlightPerReference = 0;
  private inFlight = 0;
  private readonly perReference = new Map<string, number>();
  private server: Server | undefined;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        this.posts.push({ path, body });
        const status = this.statusOf.get(path) ?? 'hold';
        if (status === 'hang') return;
        if (typeof status === 'number') return void res.writeHead(status).end();
        const reference = String(body.reference);
        this.inFlight++;
        this.perReference.set(reference, (this.perReference.get(reference) ?? 0) + 1);
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        this.maxInFlightPerReference = Math.max(this.maxInFlightPerReference, this.perReference.get(reference)!);
        setTimeout(() => {
          this.inFlight--;
          this.perReference.set(reference, this.perReference.get(reference)! - 1);
          res.writeHead(200).end();
        }, HOLD_MS);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}${path}`;
  }

  at(path: string): Post[] {
    return this.posts.filter((p) => p.path === path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let t: TestApp;
let merchant: MerchantClient;
let receiver: CountingReceiver;

beforeAll(async () => {
  for (const kind of [HUNG, ONCE, THRICE]) callbackKinds.register(kind);
  t = await startTestApp({ webhooks: { ...loadConfig({}).webhooks, timeoutMs: 10_000 } });
  merchant = new MerchantClient(t.baseUrl);
  receiver = await new CountingReceiver().start();
});
afterAll(async () => {
  // The receiver first: it ends the hung POSTs, so the app's shutdown does not wait out their timeout.
  await receiver.close();
  await t.close();
});

const sql = (query: string, params: unknown[] = []) => forkEm(t.app.services.orm).execute<Row[]>(query, params);

async function eventually(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function registerWebhook(path: string): Promise<string> {
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', { url: receiver.url(path), events: EVENTS });
  expect(registered.status).toBe(201);
  return registered.body.id;
}

function recordCallbacks(kind: CallbackKind, path: string, streams: string[]): Promise<number[]> {
  return forkEm(t.app.services.orm).transactional(async (em) => {
    const recorded = streams.map((streamId) =>
      recordCallback(em, kind, { streamType: 'test-stream', streamId, url: receiver.url(path), body: { streamId } }, t.clock.now()),
    );
    await em.flush();
    return recorded.map((callback) => callback.id);
  });
}

test('one receiver gets many payments at once, each payment’s events one at a time and in order', async () => {
  await registerWebhook('/many');
  const references = Array.from({ length: 8 }, () => newReference('engine'));
  await Promise.all(
    references.map(async (reference) => {
      expect((await merchant.createPayment({ reference })).status).toBe(201);
      expect((await merchant.forceApprove(reference)).status).toBe(200);
      expect((await merchant.modify(reference, 'capture', 1_000)).status).toBe(200);
    }),
  );
  await eventually(() => receiver.at('/many').length === references.length * 3, 'every event of every payment');

  for (const reference of references) {
    expect(
      receiver
        .at('/many')
        .filter((p) => p.body.reference === reference)
        .map((p) => p.body.name),
    ).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);
  }
  // One payment's next event goes out only once the previous one is answered; other payments' meanwhile.
  expect(receiver.maxInFlightPerReference).toBe(1);
  expect(receiver.maxInFlight).toBeGreaterThan(1);
});

test('a hung callback URL holds at most its cap; a webhook and another URL’s callbacks go out meanwhile', async () => {
  receiver.statusOf.set('/hung', 'hang');
  const streams = Array.from({ length: RECEIVER_CONCURRENCY.initial + 6 }, (_, i) => `hung-${i}`);
  await recordCallbacks(HUNG, '/hung', streams);
  await eventually(() => receiver.at('/hung').length > 0, 'the first POST to the hung URL');

  // Recorded after the backlog, so due later than all of it.
  receiver.statusOf.set('/other-callback', 200);
  receiver.statusOf.set('/webhook', 200);
  await registerWebhook('/webhook');
  const [other] = await recordCallbacks(ONCE, '/other-callback', ['other']);
  const reference = newReference('engine');
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  await eventually(() => receiver.at('/webhook').some((p) => p.body.reference === reference), 'the webhook');
  await eventually(
    async () => (await sql('select status from delivery where id = ?', [other]))[0]?.status === 'delivered',
    'the other callback',
  );

  // No POST to the hung URL has ended (its timeout is a minute), so no more than the cap were started.
  expect(receiver.at('/hung').length).toBeGreaterThan(0);
  expect(receiver.at('/hung').length).toBeLessThanOrEqual(RECEIVER_CONCURRENCY.initial);
});

test('each kind keeps its own policy in the one engine: given up after one attempt, retried, and a webhook kept for days', async () => {
  for (const path of ['/once', '/thrice', '/failing-webhook']) receiver.statusOf.set(path, 503);
  const webhookId = await registerWebhook('/failing-webhook');
  const [once] = await recordCallbacks(ONCE, '/once', ['policy-once']);
  const [thrice] = await recordCallbacks(THRICE, '/thrice', ['policy-thrice']);
  expect((await merchant.createPayment({ reference: newReference('engine') })).status).toBe(201);

  const row = async (where: string, params: unknown[]) =>
    (await sql(`select status, attempt_count, next_attempt_at from delivery where ${where}`, params))[0];
  await eventually(
    async () =>
      (await row('id = ?', [once]))?.status === 'failed' &&
      Number((await row('id = ?', [thrice]))?.attempt_count) === 1 &&
      Number((await row('webhook_id = ?', [webhookId]))?.attempt_count) === 1,
    'one attempt of each',
  );
  const [thriceAttempt] = await sql('select attempted_at from delivery_attempt where delivery_id = ?', [thrice]);
  const attemptedAt = new Date(String(thriceAttempt!.attempted_at)).getTime();
  // ONCE allows a single attempt: failed for good.
  expect(await row('id = ?', [once])).toMatchObject({ status: 'failed', attempt_count: 1 });
  // THRICE retries after its own first delay (at least half of it, by the jitter).
  const retried = await row('id = ?', [thrice]);
  expect(retried!.status).toBe('pending');
  expect(new Date(String(retried!.next_attempt_at)).getTime() - attemptedAt).toBeGreaterThanOrEqual(THRICE.retry.firstDelayMs / 2);
  // The webhook is retried within its own window (days), after the webhook backoff's first delay.
  const webhook = await row('webhook_id = ?', [webhookId]);
  expect(webhook!.status).toBe('pending');
  expect(new Date(String(webhook!.next_attempt_at)).getTime()).toBeGreaterThan(attemptedAt);

  // Its second attempt comes once its clock passes the delay, and is recorded by the same policy.
  receiver.statusOf.set('/thrice', 200);
  t.clock.advance(THRICE.retry.firstDelayMs);
  await eventually(async () => (await row('id = ?', [thrice]))?.status === 'delivered', 'the retry');
  expect(await row('id = ?', [thrice])).toMatchObject({ attempt_count: 2 });
});
