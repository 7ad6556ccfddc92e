import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { MERCHANT_A, MerchantClient, newReference } from '../support/merchant-client.js';
import { buildService, ServiceProcess, type BuiltService } from '../support/service-process.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { freePort } from '../support/free-port.js';

/**
 * issue 37 item 1, as a developer runs it: the built service, `paygraph listen` and the README's sample receiver
 * (samples/webhook-receiver/receiver.mjs, which verifies every request and answers 401 to one it cannot) each as a
 * process of its own. listen is killed (SIGKILL) while it forwards and started again, the service is stopped and
 * started again under listen, and the receiver's log is compared with the unit's outbox: every event with a webhook
 * type arrived, verified, in the outbox's order; none twice once acknowledged.
 */
let built: BuiltService;
let database: TestDatabase;
let dir: string;
let servicePort: number;
let service: ServiceProcess;
const processes: ChildProcess[] = [];

beforeAll(async () => {
  built = await buildService();
  database = await createTestDatabase({ migrated: true, inDirectory: true });
  dir = await mkdtemp(join(tmpdir(), 'paygraph-listen-'));
  servicePort = await freePort();
  service = startService();
  await service.listening;
}, 300_000);
afterAll(async () => {
  for (const child of processes) child.kill('SIGKILL');
  await service?.kill();
  await database?.drop();
  await rm(dir, { recursive: true, force: true });
});

/** The service on a fixed port (listen is told its URL once), on a database that outlives each run. */
function startService(): ServiceProcess {
  return new ServiceProcess(built, {
    PAYGRAPH_ENV: 'test',
    PORT: String(servicePort),
    PAYGRAPH_LOG_REQUESTS: 'false',
    ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : { DATA_DIR: database.dataDir }),
  });
}

/** A process whose output lines are collected as they come. */
function run(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; stdout: string[]; stderr: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, args, { cwd: dir, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  processes.push(child);
  const collect = (into: string[]) => {
    let pending = '';
    return (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split('\n');
      pending = complete.pop()!;
      into.push(...complete);
    };
  };
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout!.on('data', collect(stdout));
  child.stderr!.on('data', collect(stderr));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout, stderr, exited };
}

async function until(what: string, holds: () => boolean, log: () => unknown): Promise<void> {
  for (const deadline = Date.now() + 2 * CONDITION_DEADLINE_MS; !holds(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(log(), null, 1)}`);
  }
}

const OUTBOX = `query($after: ID) {
  events(first: 100, order: OLDEST_FIRST, afterEventId: $after) { edges { node { eventId name reference webhookBody } } }
}`;

test('listen killed and restarted, and the service restarted under it: none lost, none twice after acknowledgement, in order', async () => {
  const baseUrl = `http://127.0.0.1:${servicePort}`;
  let merchant = new MerchantClient(baseUrl);
  const cursorFile = join(dir, 'listen', 'a.cursor');
  const cli = join(built.dir, 'src/cli.js');
  const secretRun = run([cli, 'listen', '--print-secret', '--cursor-file', cursorFile]);
  expect(await secretRun.exited).toBe(0);
  const secret = secretRun.stdout[0]!;

  const receiverPort = await freePort();
  const receiver = run([join(process.cwd(), 'samples/webhook-receiver/receiver.mjs')], {
    WEBHOOK_SECRET: secret,
    PORT: String(receiverPort),
  });
  await until(
    'the receiver to listen',
    () => receiver.stdout.some((l) => l.includes('"listening"')),
    () => receiver.stdout,
  );
  const deliveries = () =>
    receiver.stdout
      .filter((l) => !l.includes('"listening"'))
      .map((l) => JSON.parse(l) as { verified: boolean; eventId?: string; body?: unknown });

  const startId =
    (await merchant.graphql('{ events(first: 1) { edges { node { eventId } } } }')).body.data.events.edges[0]?.node.eventId ?? '0';
  const listenArgs = [
    cli,
    'listen',
    '--forward-to',
    `http://127.0.0.1:${receiverPort}/paygraph`,
    '--url',
    baseUrl,
    '--cursor-file',
    cursorFile,
    // Back within a second of the service's restart (the default waits up to 10 s between attempts).
    '--retry-max',
    '1',
  ];
  const credentials = {
    PAYGRAPH_CLIENT_ID: MERCHANT_A.clientId,
    PAYGRAPH_CLIENT_SECRET: MERCHANT_A.clientSecret,
    PAYGRAPH_SUBSCRIPTION_KEY: MERCHANT_A.subscriptionKey,
  };
  const first = run([...listenArgs, '--after', startId], credentials);
  await until(
    'listen to start',
    () => first.stderr.some((l) => l.includes('forwarding sales unit 123456')),
    () => first.stderr,
  );

  // Payments, each with several events (created, authorized, captured), so their order per payment shows.
  const payments = async (count: number, prefix: string) => {
    for (let i = 0; i < count; i++) {
      const reference = await merchant.authorizedPayment(1_000, { reference: newReference(prefix) });
      expect((await merchant.modify(reference, 'capture', 1_000)).status).toBe(200);
    }
  };
  await payments(6, 'listen-first');
  // Killed while it forwards: what it had not acknowledged comes again, what it had never does.
  await until('some deliveries', () => deliveries().length >= 4, deliveries);
  first.child.kill('SIGKILL');
  await first.exited;
  const cursorAtKill = (await readFile(cursorFile, 'utf8')).trim();

  await payments(3, 'listen-while-down');
  const second = run(listenArgs, credentials);
  await until(
    'listen to resume',
    () => second.stderr.some((l) => l.includes(`after event ${cursorAtKill}`)),
    () => second.stderr,
  );

  // The service stops and starts again under listen (same database, same port).
  expect(await service.terminate()).toBe(0);
  service = startService();
  await service.listening;
  merchant = new MerchantClient(baseUrl);
  await payments(3, 'listen-after-restart');

  const outbox: { eventId: string; name: string; webhookBody: string | null }[] = [];
  for (let after = startId; ;) {
    const page = (await merchant.graphql(OUTBOX, { after })).body.data.events.edges.map((e: any) => e.node);
    outbox.push(...page);
    if (page.length < 100) break;
    after = page.at(-1).eventId;
  }
  const forwarded = outbox.filter((e) => e.webhookBody !== null);
  expect(forwarded.length).toBe(12 * 3);
  const lastId = forwarded.at(-1)!.eventId;
  await until(
    'every event delivered',
    () => deliveries().some((d) => d.eventId === lastId),
    () => ({ log: deliveries(), stderr: second.stderr }),
  );
  second.child.kill('SIGINT');
  expect(await second.exited).toBe(0);
  expect(second.stderr.some((l) => /^paygraph listen: lost http:\/\/127\.0\.0\.1:\d+ \(/.test(l))).toBe(true);
  expect(second.stderr.at(-1)).toBe(`paygraph listen: stopped; the receiver acknowledged every event up to ${outbox.at(-1)!.eventId}`);

  const log = deliveries();
  // Every request verified by the sample receiver's own code, with listen's secret.
  expect(log.filter((d) => !d.verified)).toEqual([]);
  // None lost, none that is not an event of the outbox, each the body a webhook of it carries.
  const ids = log.map((d) => d.eventId!);
  expect([...new Set(ids)]).toEqual(forwarded.map((e) => e.eventId));
  for (const d of log) expect(d.body).toEqual(JSON.parse(forwarded.find((e) => e.eventId === d.eventId)!.webhookBody!));
  // Twice only what listen had not acknowledged when it was killed: the one event it was forwarding then.
  const position = (id: string) => outbox.findIndex((e) => e.eventId === id);
  const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
  expect(repeated.length).toBeLessThanOrEqual(1);
  for (const id of repeated) expect(position(id)).toBeGreaterThan(position(cursorAtKill));
  // In the outbox's order (the stream's), so each payment's events in the order they happened.
  expect(ids.filter((id, i) => ids.indexOf(id) === i)).toEqual(forwarded.map((e) => e.eventId));
}, 180_000);
