import { basename } from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { metricOf, replicaEnv, startBalancer, until, type Balancer } from '../support/load-balancer.js';
import { freePort } from '../support/free-port.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { previousRelease, type PreviousRelease } from '../support/previous-release.js';
import { buildService, ServiceProcess, type BuiltService } from '../support/service-process.js';
import { connectionParamsOf, graphqlWsUrl } from '../support/subscriber.js';
import { admin, createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Issue 36 point 2: a rolling upgrade without downtime. The release before this checkout's newest migration (found in
 * the checkout's git history: test/support/previous-release.ts) is built next to this one and serves a fresh
 * database behind HAProxy; under load (creates, approvals, captures, webhooks to a receiver, a subscriber that resumes
 * from the last event it saw) this version starts and runs its migrations while the old one serves, both serve, an old
 * instance started once the new migrations are in starts and serves, and the old ones retire (SIGTERM, drain). No request fails and no
 * event is lost. PostgreSQL only, as the load-balanced test: two processes cannot share one PGlite database.
 */
const describeOnPostgres = onPostgres ? describe : describe.skip;
/** Clients sending payments at once: enough that requests are always in flight, few enough to leave the starts CPU. */
const WORKERS = 2;
const NAMES = ['CREATED', 'AUTHORIZED', 'CAPTURED'];
const EVENTS = NAMES.map((name) => `epayments.payment.${name.toLowerCase()}.v1`);

interface SeenEvent {
  eventId: string;
  name: string;
  reference: string;
}

describeOnPostgres('a rolling upgrade from the release before the newest migration', () => {
  let release: PreviousRelease;
  let oldBuild: BuiltService;
  let newBuild: BuiltService;
  let database: TestDatabase;
  let balancer: Balancer | undefined;
  const webhooks = new WebhookReceiver();
  const processes: ServiceProcess[] = [];
  let oldPort: number;
  let newPort: number;
  let restartPort: number;
  const metricsPorts = { old: 0, new: 0, restarted: 0 };
  let env: (port: number, metricsPort: number) => Record<string, string>;

  beforeAll(async () => {
    release = await previousRelease();
    // Both at once: this version's build is usually made already (CI builds it beside the check).
    [oldBuild, newBuild] = await Promise.all([buildService(release.root), buildService()]);
    database = await createTestDatabase();
    await webhooks.start();
    [oldPort, newPort, restartPort] = [await freePort(), await freePort(), await freePort()];
    [metricsPorts.old, metricsPorts.new, metricsPorts.restarted] = [await freePort(), await freePort(), await freePort()];
    const balancerPort = await freePort();
    env = (port, metricsPort) => ({ ...replicaEnv({ databaseUrl: database.databaseUrl!, balancerPort, metricsPort }), PORT: String(port) });
    // The balancer knows both places from the start; the new one is down until it listens and passes two checks.
    balancer = await startBalancer(balancerPort, [oldPort, newPort]);
  }, 300_000);
  // Stopped here too, so a failing run leaves no client sending or reconnecting in the worker after its file.
  const clients: { load?: Load; subscriber?: ResumingSubscriber } = {};

  afterAll(async () => {
    await clients.load?.stop();
    await clients.subscriber?.close();
    await balancer?.stop();
    for (const instance of processes) await instance.kill();
    await webhooks.close();
    await database?.drop();
  });

  test('the old release and this one serve side by side under load; no request fails, no event is lost', async () => {
    expect(release.newMigrations.length).toBeGreaterThan(0);
    const newMigrationNames = release.newMigrations.map((file) => basename(file).replace(/\.ts$/, ''));
    const lb = balancer!.url;

    // The old release alone on a fresh database: it runs its own migrations and seeds the test environment.
    const old = start(oldBuild, oldPort, metricsPorts.old);
    await old.listening;
    await until(async () => (await fetch(`${lb}/readyz`).catch(() => undefined))?.status === 200, 'the balancer to reach the old release');
    expect(await appliedMigrations()).not.toEqual(expect.arrayContaining(newMigrationNames));

    const merchant = new MerchantClient(lb);
    await merchant.accessToken();
    const registered = await merchant.request('POST', '/webhooks/v1/webhooks', { url: webhooks.url('/upgrade'), events: EVENTS });
    expect(registered.status).toBe(201);
    webhooks.route('/upgrade', (registered.body as { secret: string }).secret);

    // A subscriber to every payment event of the sales unit, on the old release (the only one serving), resuming
    // through the balancer from the last event it saw whenever its socket closes.
    const subscriber = (clients.subscriber = new ResumingSubscriber(graphqlWsUrl(lb), await connectionParamsOf(merchant)));
    await until(() => subscriber.connections === 1, 'the subscriber to connect');
    await until(async () => (await metricOf(metricsPorts.old, 'paygraph_subscriptions_open')) === 1, 'the subscriber on the old release');

    const load = (clients.load = new Load(merchant));
    await until(() => load.completed >= 3, 'payments through the old release alone');

    // This version starts while the old one serves under load: it migrates the database the old one is writing.
    const servedByOldBefore = await requestsAnswered(metricsPorts.old);
    const upgraded = start(newBuild, newPort, metricsPorts.new);
    // An old instance starting once the new migrations are in (a restart, a scale-out during the rollout) still
    // starts. It starts beside the new one's own start, on a place of its own outside the balancer.
    await until(
      async () => (await appliedMigrations()).filter((name) => newMigrationNames.includes(name)).length === newMigrationNames.length,
      'the new migrations',
      // Each migration may give way to the old release's traffic and run again (orm.ts); on a busy machine the new
      // process's own start takes a while too.
      120_000,
    );
    const restarted = start(oldBuild, restartPort, metricsPorts.restarted);
    await upgraded.listening;
    // Both serve: each answers requests after the migrations ran.
    const servedByOldAtUpgrade = await requestsAnswered(metricsPorts.old);
    const completedAtUpgrade = load.completed;
    await until(
      async () =>
        (await requestsAnswered(metricsPorts.new)) > 10 &&
        (await requestsAnswered(metricsPorts.old)) > servedByOldAtUpgrade + 10 &&
        load.completed >= completedAtUpgrade + 3,
      'both releases to serve',
    );
    expect(servedByOldAtUpgrade).toBeGreaterThan(servedByOldBefore);
    // The old instance started after the migrations serves a payment of its own on the migrated schema.
    await restarted.listening;
    await load.payThrough(new MerchantClient(`http://127.0.0.1:${restartPort}`));

    // The old release retires: SIGTERM, it drains, and the new one carries on alone.
    const completedBeforeRetiring = load.completed;
    expect(await Promise.all([old.terminate(), restarted.terminate()])).toEqual([0, 0]);
    // That both drained shows in the load, which saw no failure, and in their exit status; the stop report that says
    // so in words is this release's (start-and-stop, load-balanced), and the release before may not print it.
    await until(() => load.completed >= completedBeforeRetiring + 3, 'payments through this version alone');
    await load.stop();

    expect(load.failures).toEqual([]);
    expect(subscriber.errors).toEqual([]);
    // The subscriber was on the old release: its socket closed at the drain and it resumed through the balancer.
    expect(subscriber.connections).toBeGreaterThanOrEqual(2);

    // No lost event: every step of every payment reached the webhook receiver, signed, and the resuming subscriber,
    // once, in order per payment.
    const expected = load.references.flatMap((reference) => NAMES.map((name) => `${reference} ${name}`));
    await webhooks.waitFor(
      (received) => {
        const got = new Set(
          received.filter((r) => r.path === '/upgrade' && r.status === 200).map((r) => `${r.body.reference} ${r.body.name}`),
        );
        return expected.every((key) => got.has(key));
      },
      'every webhook of every payment',
      60_000,
    );
    expect(webhooks.at('/upgrade').every((r) => r.verified)).toBe(true);
    await until(() => expected.every((key) => subscriber.has(key)), 'the subscriber to see every event', 60_000);
    const mine = subscriber.seen.filter((event) => load.references.includes(event.reference));
    expect(mine.length).toBe(expected.length);
    for (const reference of load.references) {
      expect(mine.filter((event) => event.reference === reference).map((event) => event.name)).toEqual(NAMES);
    }
    // One event id for one event, whoever carried it: the webhook's header and the subscription agree.
    const byKey = new Map(mine.map((event) => [`${event.reference} ${event.name}`, event.eventId]));
    for (const received of webhooks.at('/upgrade'))
      expect(received.eventId).toBe(byKey.get(`${received.body.reference} ${received.body.name}`));
    await subscriber.close();
    process.stdout.write(
      `rolling upgrade from ${release.commit.slice(0, 12)} (before ${release.changedBy.slice(0, 12)}, which added ` +
        `${newMigrationNames.join(', ')}): ${load.references.length} payments, ${load.requests} requests, ` +
        `${subscriber.connections} subscriber connections\n`,
    );
  }, 240_000);

  function start(built: BuiltService, port: number, metricsPort: number): ServiceProcess {
    const instance = new ServiceProcess(built, env(port, metricsPort));
    processes.push(instance);
    return instance;
  }

  async function appliedMigrations(): Promise<string[]> {
    return (await admin(database.databaseUrl!, 'select name from mikro_orm_migrations')).rows.map((row: { name: string }) => row.name);
  }
});

function requestsAnswered(metricsPort: number): Promise<number> {
  return metricOf(metricsPort, 'paygraph_http_requests_total', /route="\/epayment/);
}

/**
 * Payments through the balancer by a few clients at once, each created, approved (the test environment's force
 * approve) and captured, until stopped. A request that is not answered as it should be is a failure, kept with what
 * it got.
 */
class Load {
  completed = 0;
  requests = 0;
  readonly references: string[] = [];
  readonly failures: string[] = [];
  private stopped = false;
  private readonly workers: Promise<void>[];

  constructor(private readonly merchant: MerchantClient) {
    this.workers = Array.from({ length: WORKERS }, () => this.work());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }

  /** One payment, created, approved and captured through `merchant`'s address. */
  async payThrough(merchant: MerchantClient): Promise<void> {
    const reference = newReference('upgrade');
    const steps: [string, number, () => Promise<{ status: number; text: string }>][] = [
      ['create', 201, () => merchant.createPayment({ reference })],
      ['approve', 200, () => merchant.forceApprove(reference)],
      ['capture', 200, () => merchant.modify(reference, 'capture', 10_000)],
    ];
    for (const [step, status, send] of steps) {
      this.requests += 1;
      const answer = await send().catch((error: unknown) => ({ status: 0, text: String(error) }));
      if (answer.status !== status) {
        this.failures.push(`${step} ${reference}: ${answer.status} ${answer.text.slice(0, 300)}`);
        return;
      }
      if (step === 'create') this.references.push(reference);
      if (step === 'capture') this.completed += 1;
    }
  }

  private async work(): Promise<void> {
    while (!this.stopped) await this.payThrough(this.merchant);
  }
}

/**
 * A subscriber to every payment event of its sales unit that, when its socket closes (a draining instance closes it
 * with 1012), connects again through the balancer and resumes after the last event it saw, as the schema tells
 * clients to.
 */
class ResumingSubscriber {
  connections = 0;
  readonly seen: SeenEvent[] = [];
  readonly errors: string[] = [];
  private readonly keys = new Set<string>();
  private client: Client;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly connectionParams: Record<string, string>,
  ) {
    this.client = this.subscribe('0');
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client.dispose();
  }

  private subscribe(after: string): Client {
    const client = createClient({
      url: this.url,
      webSocketImpl: WebSocket,
      connectionParams: this.connectionParams,
      retryAttempts: 0,
      lazy: true,
      on: { connected: () => (this.connections += 1) },
    });
    const resume = () => {
      if (this.closed) return;
      void client.dispose();
      this.client = this.subscribe(this.seen.at(-1)?.eventId ?? after);
    };
    client.subscribe<{ paymentEvents: { event: SeenEvent } }>(
      {
        query: 'subscription ($after: ID) { paymentEvents(after: $after) { event { eventId name reference } } }',
        variables: { after },
      },
      {
        next: (result) => {
          if (result.errors) this.errors.push(JSON.stringify(result.errors));
          else {
            const event = result.data!.paymentEvents.event;
            this.seen.push(event);
            this.keys.add(`${event.reference} ${event.name}`);
          }
        },
        // A closed socket: a CloseEvent (the drain's 1012), or an Error if no instance took the connection.
        error: (error) => {
          if (Array.isArray(error)) this.errors.push(JSON.stringify(error));
          resume();
        },
        complete: resume,
      },
    );
    return client;
  }
}
