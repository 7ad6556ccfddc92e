import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { MerchantClient } from '../support/merchant-client.js';
import { median } from '../support/subscriber.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { namesFor, WebhookReceiver } from '../support/webhook-receiver.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

// Several instances coordinate through row locks on one PostgreSQL database; PGlite is one process's database.
const describeOnPostgres = onPostgres ? describe : describe.skip;
const ALL_EVENTS = ['created', 'aborted', 'expired', 'cancelled', 'captured', 'refunded', 'authorized', 'terminated'].map(
  (n) => `epayments.payment.${n}.v1`,
);

async function register(client: MerchantClient, receiver: WebhookReceiver, path: string): Promise<string> {
  const registered = await client.request('POST', '/webhooks/v1/webhooks', { url: receiver.url(path), events: ALL_EVENTS });
  expect(registered.status).toBe(201);
  receiver.route(path, registered.body.secret);
  return registered.body.id;
}

describeOnPostgres('two instances on one database', () => {
  let first: TestApp;
  let second: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    first = await startTestApp();
    second = await startTestApp({ databaseUrl: first.app.services.config.databaseUrl });
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await receiver?.close();
  });

  test('deliver each event exactly once, in order per payment', async () => {
    await register(new MerchantClient(first.baseUrl), receiver, '/shared');
    const clients = [new MerchantClient(first.baseUrl), new MerchantClient(second.baseUrl)];
    const references = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const client = clients[i % 2]!;
        const reference = await client.authorizedPayment(2_000);
        expect((await client.modify(reference, 'capture', 2_000)).status).toBe(200);
        return reference;
      }),
    );
    await receiver.waitFor((received) => received.length >= references.length * 3, 'every event', 20_000);
    for (const reference of references) expect(namesFor(receiver.at('/shared'), reference)).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);
    const ids = receiver.at('/shared').map((r) => r.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receiver.received.every((r) => r.verified)).toBe(true);

    // The database agrees: one delivery per event, each delivered on its one and only attempt.
    const db = new pg.Client({ connectionString: first.app.services.config.databaseUrl });
    await db.connect();
    try {
      const tally = async () =>
        (
          await db.query(
            `select count(*)::int as deliveries, count(*) filter (where status = 'delivered' and attempt_count = 1)::int as once,
               (select count(*)::int from delivery_attempt) as attempts,
               (select count(*)::int from payment_event where dispatched_at is null) as undispatched
             from delivery where kind = 'webhook'`,
          )
        ).rows[0];
      // The receiver answers before the outcome is recorded: wait until no delivery is left pending.
      for (
        const deadline = Date.now() + CONDITION_DEADLINE_MS;
        (await db.query(`select 1 from delivery where kind = 'webhook' and status = 'pending'`)).rowCount! > 0;
      ) {
        if (Date.now() > deadline) throw new Error(`deliveries still pending: ${JSON.stringify(await tally())}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await tally()).toEqual({ deliveries: ids.length, once: ids.length, attempts: ids.length, undispatched: 0 });
    } finally {
      await db.end();
    }
  });
});

describeOnPostgres('latency with production job intervals', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // The production default, not the 25 ms of other tests.
    t = await startTestApp({ jobIntervalMs: loadConfig({}).jobIntervalMs });
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  test('median time from a committed capture to the receiver', async () => {
    const merchant = new MerchantClient(t.baseUrl);
    await register(merchant, receiver, '/latency');
    const latencies: number[] = [];
    for (let i = 0; i < 25; i++) {
      const reference = await merchant.authorizedPayment(1_000);
      await receiver.waitFor(() => namesFor(receiver.received, reference).length === 2, 'CREATED and AUTHORIZED');
      // Captures at random points of the polling cycle, not in step with the delivery that was just received.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 250));
      const response = await merchant.modify(reference, 'capture', 1_000);
      // The capture's transaction committed before its response was written.
      const committed = performance.now();
      expect(response.status).toBe(200);
      await receiver.waitFor(() => namesFor(receiver.received, reference).length === 3, 'CAPTURED');
      const arrived = receiver.received.find((r) => r.body.reference === reference && r.body.name === 'CAPTURED')!.at;
      latencies.push(arrived - committed);
    }
    console.log(
      `webhook delivery latency (PostgreSQL, job interval ${t.app.services.config.jobIntervalMs} ms): median ${median(latencies).toFixed(1)} ms, ` +
        `max ${Math.max(...latencies).toFixed(1)} ms over ${latencies.length} captures`,
    );
  });
});
