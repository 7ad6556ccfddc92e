import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import pg from 'pg';
import { MerchantClient } from '../support/merchant-client.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';
import { namesFor, WebhookReceiver } from '../support/webhook-receiver.js';

// The built service as a real process, killed without warning: only a server database outlives it.
const describeOnPostgres = onPostgres ? describe : describe.skip;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describeOnPostgres('a killed instance', () => {
  let database: TestDatabase;
  let service: ChildProcess | undefined;
  let port: number;
  let output = '';

  beforeAll(() => {
    execFileSync('npm', ['run', 'build'], { stdio: 'ignore' });
  }, 60_000);
  afterAll(async () => {
    service?.kill('SIGKILL');
    await database?.drop();
  });

  async function startService(): Promise<string> {
    const baseUrl = `http://127.0.0.1:${port}`;
    service = spawn(process.execPath, ['dist/src/main.js'], {
      env: {
        ...process.env,
        DATABASE_URL: database.databaseUrl,
        PORT: String(port),
        PUBLIC_URL: baseUrl,
        PAYGRAPH_ENV: 'test',
        PAYGRAPH_LOG_REQUESTS: 'false',
        // Fast retries and a short lease, so the test waits seconds rather than the production schedule.
        PAYGRAPH_WEBHOOK_FIRST_RETRY_MS: '200',
        PAYGRAPH_WEBHOOK_MAX_RETRY_MS: '1000',
        PAYGRAPH_WEBHOOK_TIMEOUT_MS: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    service.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    for (const deadline = Date.now() + 20_000; ;) {
      const healthy = await fetch(`${baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (healthy) return baseUrl;
      if (Date.now() > deadline || service.exitCode !== null) throw new Error(`the service did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function kill(): Promise<void> {
    const exited = new Promise((resolve) => service!.once('exit', resolve));
    service!.kill('SIGKILL');
    await exited;
  }

  test('events committed before a SIGKILL reach the receiver after a restart, in order', async () => {
    database = await createTestDatabase();
    port = await freePort();
    const receiverPort = await freePort();
    const receiver = new WebhookReceiver();
    const merchant = new MerchantClient(await startService());
    const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
      url: `http://127.0.0.1:${receiverPort}/restart`,
      events: ['epayments.payment.created.v1', 'epayments.payment.authorized.v1', 'epayments.payment.captured.v1'],
    });
    expect(registered.status).toBe(201);
    receiver.route('/restart', registered.body.secret);

    // The receiver is down: the first payment's deliveries fail (connection refused) and wait for a retry.
    const early = await merchant.authorizedPayment(1_000);
    expect((await merchant.modify(early, 'capture', 1_000)).status).toBe(200);
    const db = new pg.Client({ connectionString: database.databaseUrl });
    await db.connect();
    try {
      for (const deadline = Date.now() + 10_000; ;) {
        const { rows } = await db.query(`select count(*)::int as n from webhook_delivery_attempt where error = 'connection refused'`);
        if (rows[0].n > 0) break;
        if (Date.now() > deadline) throw new Error(`no failed attempt recorded:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The second payment's events commit right before the kill, most likely before any dispatch.
      const late = await merchant.authorizedPayment(1_000);
      expect((await merchant.modify(late, 'capture', 1_000)).status).toBe(200);
      await kill();

      await receiver.start(receiverPort);
      await startService();
      await receiver.waitFor(
        (received) => [early, late].every((reference) => namesFor(received, reference, true).length >= 3),
        'both payments’ events after the restart',
        20_000,
      );
      for (const reference of [early, late]) {
        // At least once: a POST cut off by the kill may come again, with the same event id for de-duplication.
        const distinct = [
          ...new Map(receiver.received.filter((r) => r.body.reference === reference).map((r) => [r.eventId, r.body.name])).values(),
        ];
        expect(distinct).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);
      }
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      // The receiver answers before the outcome is recorded: wait for the records to catch up.
      for (const deadline = Date.now() + 5_000; ;) {
        const { rows } = await db.query(`select count(*)::int as n from webhook_delivery where status <> 'delivered'`);
        if (rows[0].n === 0) break;
        if (Date.now() > deadline) throw new Error(`${rows[0].n} deliveries not recorded as delivered`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await db.end();
      await receiver.close();
    }
  }, 45_000);
});
