import pg from 'pg';
import { INTERRUPTED_ATTEMPT_ERROR } from '../../src/platform/delivery/delivery-table.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { buildService, ServiceProcess, type BuiltService } from '../support/service-process.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';
import { namesFor, WebhookReceiver } from '../support/webhook-receiver.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

// The built service as a real process, killed without warning: only a server database outlives it.
const describeOnPostgres = onPostgres ? describe : describe.skip;

describeOnPostgres('a killed instance', () => {
  let built: BuiltService;
  let database: TestDatabase;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    built = await buildService();
  }, 300_000);

  /** Starts the built service; `env` adds to (or overrides) the test's settings. */
  async function startService(env: Record<string, string> = {}): Promise<string> {
    service = new ServiceProcess(built, {
      DATABASE_URL: database.databaseUrl!,
      // The links the service hands out are not followed here.
      PUBLIC_URL: 'http://127.0.0.1:1',
      PAYGRAPH_ENV: 'test',
      PAYGRAPH_LOG_REQUESTS: 'false',
      // Fast retries and a short lease, so the test waits seconds rather than the production schedule.
      PAYGRAPH_WEBHOOK_FIRST_RETRY_MS: '200',
      PAYGRAPH_WEBHOOK_MAX_RETRY_MS: '1000',
      PAYGRAPH_WEBHOOK_TIMEOUT_MS: '1000',
      ...env,
    });
    return `http://127.0.0.1:${await service.listening}`;
  }

  async function count(db: pg.Client, sql: string): Promise<number> {
    const { rows } = await db.query(`select count(*)::int as n ${sql}`);
    return rows[0].n as number;
  }

  /** Polls until `sql` counts `expected` rows (a bounded wait, failing with what it last saw). */
  async function waitForCount(db: pg.Client, sql: string, expected: number, timeoutMs = CONDITION_DEADLINE_MS): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; ;) {
      const n = await count(db, sql);
      if (n === expected) return;
      if (Date.now() > deadline) throw new Error(`expected ${expected} rows ${sql}, have ${n}:\n${service?.output ?? ''}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeEach(async () => {
    database = await createTestDatabase({ migrated: true });
  });
  afterEach(async () => {
    await service?.kill();
    await database.drop();
  });

  test('events committed before a SIGKILL reach the receiver after a restart, in order', async () => {
    const receiver = await new WebhookReceiver().start();
    // No jobs in the first run: nothing is dispatched or posted before the kill, whatever the timing.
    const merchant = new MerchantClient(await startService({ PAYGRAPH_RUN_JOBS: 'false' }));
    const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
      url: receiver.url('/restart'),
      events: ['epayments.payment.created.v1', 'epayments.payment.authorized.v1', 'epayments.payment.captured.v1'],
    });
    expect(registered.status).toBe(201);
    receiver.route('/restart', registered.body.secret);
    const db = new pg.Client({ connectionString: database.databaseUrl });
    await db.connect();
    try {
      const early = await merchant.authorizedPayment(1_000);
      expect((await merchant.modify(early, 'capture', 1_000)).status).toBe(200);
      const late = await merchant.authorizedPayment(1_000);
      expect((await merchant.modify(late, 'capture', 1_000)).status).toBe(200);
      expect(await count(db, 'from payment_event where dispatched_at is null')).toBe(6);
      await service!.kill();
      expect(receiver.received).toEqual([]);

      await startService();
      await receiver.waitFor(
        (received) => [early, late].every((reference) => namesFor(received, reference, true).length >= 3),
        'both payments’ events after the restart',
        20_000,
      );
      for (const reference of [early, late]) {
        // At least once: a POST that timed out may come again, with the same event id for de-duplication.
        const distinct = [
          ...new Map(receiver.received.filter((r) => r.body.reference === reference).map((r) => [r.eventId, r.body.name])).values(),
        ];
        expect(distinct).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);
      }
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      // The receiver answers before the outcome is recorded: wait for the records to catch up.
      await waitForCount(db, `from delivery where kind = 'webhook' and status <> 'delivered'`, 0);
      expect(await count(db, `from delivery where kind = 'webhook'`)).toBe(6);
    } finally {
      await db.end();
      await receiver.close();
    }
  }, 90_000);

  test('a POST cut off by a SIGKILL is sent again, with the same event id, once its lease has run out', async () => {
    const receiver = await new WebhookReceiver().start();
    // The lease is the POST timeout plus a margin: a timeout of 3 s leaves ample time to kill mid-POST.
    const env = { PAYGRAPH_WEBHOOK_TIMEOUT_MS: '3000' };
    const merchant = new MerchantClient(await startService(env));
    const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
      url: receiver.url('/hang'),
      events: ['epayments.payment.created.v1'],
    });
    expect(registered.status).toBe(201);
    let calls = 0;
    // The first POST hangs (past the kill); any later one is acknowledged.
    receiver.route('/hang', registered.body.secret, () => (++calls === 1 ? { hang: 60_000 } : 200));
    const db = new pg.Client({ connectionString: database.databaseUrl });
    await db.connect();
    try {
      const reference = newReference();
      expect((await merchant.createPayment({ reference })).status).toBe(201);
      await receiver.waitFor((received) => received.length === 1, 'the first POST');
      await service!.kill();
      // Killed mid-POST: the first run recorded no outcome, and its lease still holds the delivery; the attempt it
      // wrote when claiming is there, without an outcome.
      expect(
        await count(db, `from delivery where kind = 'webhook' and status = 'pending' and attempt_count = 0 and lease_until is not null`),
      ).toBe(1);
      expect(await count(db, 'from delivery_attempt where duration_ms is null and error is null')).toBe(1);

      await startService(env);
      await receiver.waitFor((received) => received.length === 2, 'the POST again after the lease ran out', 20_000);
      const [first, second] = receiver.received;
      expect(second!.eventId).toBe(first!.eventId);
      expect(second!.body).toEqual(first!.body);
      expect(second!.verified).toBe(true);
      await waitForCount(db, `from delivery where kind = 'webhook' and status = 'delivered'`, 1);
      expect(receiver.received).toHaveLength(2);
      // The cut-off attempt shows as interrupted, the second as answered.
      const { rows } = await db.query('select status_code, duration_ms is not null as completed, error from delivery_attempt order by id');
      expect(rows).toEqual([
        { status_code: null, completed: false, error: INTERRUPTED_ATTEMPT_ERROR },
        { status_code: 200, completed: true, error: null },
      ]);
    } finally {
      await db.end();
      await receiver.close();
    }
  }, 90_000);
});
