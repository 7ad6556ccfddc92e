import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { metricOf, replicaEnv, startBalancer, until, type Balancer } from '../support/load-balancer.js';
import { freePort } from '../support/free-port.js';
import { MERCHANT_A, MerchantClient } from '../support/merchant-client.js';
import { buildService, ServiceProcess, type BuiltService } from '../support/service-process.js';
import { connectionParamsOf, graphqlWsUrl } from '../support/subscriber.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';
import { WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';

/**
 * Issue 21 point 6, grown by issue 36 (N instances): the load-balanced shape without Docker. Three instances of the
 * built service on one PostgreSQL database, Debian's HAProxy in front of them with the repository's own
 * `deploy/haproxy/haproxy.cfg`, under mixed load through it: clients creating, approving and capturing payments with
 * idempotency keys, two webhook registrations (one receiver slow), and subscribers that resume with `after:`. During
 * the load one instance is killed with SIGKILL and another gets SIGTERM (it drains). The clients retry with their
 * keys and see every operation once; every committed event (read from the outbox afterwards) reaches both webhooks
 * and every subscriber, in order per payment. The replicas run with docker-compose.yml's rate-limit settings (the
 * balancer trusted, the counters in PostgreSQL): a quota is one quota across the three. PostgreSQL only (processes
 * cannot share PGlite); test mode, so force approve stands in for the wallet user.
 */
const describeOnPostgres = onPostgres ? describe : describe.skip;
const EVENTS = ['created', 'authorized', 'captured'].map((name) => `epayments.payment.${name}.v1`);
/** Requests a minute per client address without a token: small, so a client spends it in a few requests. */
const ADDRESS_QUOTA = 10;
const INSTANCES = 3;
/** Payments of the load, and the clients working through them at once (each one payment at a time). */
const PAYMENTS = 24;
const CLIENTS = 6;
/** The load's n-th finished payment sets off the SIGKILL, and a later one the SIGTERM: both while clients are busy. */
const KILL_AFTER = 6;
const TERMINATE_AFTER = 12;
const AMOUNT = 10_000;
const CAPTURE = 4_000;
/** The slow receiver's answer time: a delivery is in flight most of the time, so a kill finds leases held. */
const SLOW_RECEIVER_MS = 250;

describeOnPostgres('three instances behind HAProxy', () => {
  let built: BuiltService;
  let database: TestDatabase;
  let balancer: Balancer | undefined;
  let instances: ServiceProcess[] = [];
  const webhooks = new WebhookReceiver();
  let metricsPorts: number[];
  let lb: string;

  beforeAll(async () => {
    built = await buildService();
    database = await createTestDatabase();
    await webhooks.start();
    metricsPorts = await Promise.all(Array.from({ length: INSTANCES }, () => freePort()));
    const lbPort = await freePort();
    const env = (metricsPort: number) => ({
      ...replicaEnv({ databaseUrl: database.databaseUrl!, balancerPort: lbPort, metricsPort }),
      // A killed instance's deliveries are taken over once their lease runs out: a short one keeps the wait short.
      PAYGRAPH_DELIVERY_LEASE_MS: '1000',
      // docker-compose.yml's settings: the counters shared in PostgreSQL.
      PAYGRAPH_RATE_LIMIT_STORE: 'postgres',
      PAYGRAPH_RATE_LIMIT_ADDRESS: String(ADDRESS_QUOTA),
    });
    // All at once, as a scale-out starts them (the migrations run once, under the database's migration lock).
    instances = metricsPorts.map((port) => new ServiceProcess(built, env(port)));
    const ports = await Promise.all(instances.map((instance) => instance.listening));
    // The start line says where the metrics are and that the jobs run.
    for (const [i, instance] of instances.entries()) {
      expect(instance.output).toContain(`"metrics":"port ${metricsPorts[i]!}, /metrics","jobs":"running, every 50 ms"`);
    }
    balancer = await startBalancer(lbPort, ports);
    lb = balancer.url;
    await until(async () => (await fetch(`${lb}/readyz`).catch(() => undefined))?.status === 200, 'the balancer to be ready');
  }, 300_000);
  afterAll(async () => {
    // A test that failed left its subscribers resuming: they would keep the run alive.
    await Promise.all([...ResumingSubscriber.open].map((subscriber) => subscriber.close()));
    await balancer?.stop();
    for (const instance of instances) await instance.kill();
    await webhooks.close();
    await database?.drop();
    await built?.remove();
  });

  test('two clients behind the balancer get two quotas, each counted once across the three replicas', async () => {
    const compose = await readFile(join(process.cwd(), 'docker-compose.yml'), 'utf8');
    expect(compose).toMatch(/^ {4}PAYGRAPH_TRUSTED_PROXIES: \S+/m);
    expect(compose).toMatch(/^ {4}PAYGRAPH_RATE_LIMIT_STORE: postgres$/m);
    const answeredBefore = await Promise.all(metricsPorts.map((port) => tokenRequestsAnswered(port)));

    // Two clients, told apart only by the source address HAProxy appends to X-Forwarded-For. Each request on a
    // connection of its own, so the balancer takes turns between the replicas.
    const first: { status: number; remaining: string | undefined }[] = [];
    for (let i = 0; i <= ADDRESS_QUOTA; i++) first.push(await tokenRequestFrom('127.0.0.2'));
    // The quota is counted once across the replicas (PostgreSQL), not once on each.
    expect(first.map((r) => r.status)).toEqual([...Array<number>(ADDRESS_QUOTA).fill(200), 429]);
    expect(first.slice(0, ADDRESS_QUOTA).map((r) => r.remaining)).toEqual(
      Array.from({ length: ADDRESS_QUOTA }, (_, i) => String(ADDRESS_QUOTA - 1 - i)),
    );
    // The other client still has its whole quota; the spent one gains nothing by writing an address of its own.
    expect(await tokenRequestFrom('127.0.0.3')).toEqual({ status: 200, remaining: String(ADDRESS_QUOTA - 1) });
    expect((await tokenRequestFrom('127.0.0.2', { 'X-Forwarded-For': '203.0.113.9' })).status).toBe(429);

    // Every replica answered some of them: the one quota was spent across all three.
    const answeredAfter = await Promise.all(metricsPorts.map((port) => tokenRequestsAnswered(port)));
    expect(answeredAfter.map((count, i) => count > answeredBefore[i]!)).toEqual(Array<boolean>(INSTANCES).fill(true));
  });

  test('under mixed load, one instance killed and one drained: every operation once, every event everywhere in order', async () => {
    const merchant = new MerchantClient(lb);
    const headers = await merchant.headers();
    for (const path of ['/prompt', '/slow']) {
      const registered = await merchant.request('POST', '/webhooks/v1/webhooks', { url: webhooks.url(path), events: EVENTS });
      expect(registered.status).toBe(201);
      webhooks.route(path, (registered.body as { secret: string }).secret);
    }
    webhooks.reply('/slow', () => ({ held: new Promise<number>((resolve) => setTimeout(() => resolve(200), SLOW_RECEIVER_MS)) }));

    // Subscribers through the balancer, from the stream's start, until every instance holds at least one.
    const params = await connectionParamsOf(merchant);
    const subscribers: ResumingSubscriber[] = [];
    const openOn = () => Promise.all(metricsPorts.map((port) => metricOf(port, 'paygraph_subscriptions_open')));
    while ((await openOn()).some((open) => open === 0)) {
      if (subscribers.length >= 3 * INSTANCES) throw new Error(`the balancer did not spread subscribers: ${String(await openOn())}`);
      subscribers.push(new ResumingSubscriber(graphqlWsUrl(lb), params));
      await until(async () => (await openOn()).reduce((sum, open) => sum + open, 0) === subscribers.length, 'the subscriber to subscribe');
    }
    const [survivor, killed, drained] = instances as [ServiceProcess, ServiceProcess, ServiceProcess];
    const heldByVictims = (await openOn()).slice(1).reduce((sum, open) => sum + open, 0);

    // The load: each client takes the next payment and creates, approves and captures it, retrying with its keys.
    const client = new RetryingClient(lb, headers);
    const flows: Flow[] = [];
    let finished = 0;
    let drainExit: Promise<number | null> | undefined;
    const work = async () => {
      while (flows.length < PAYMENTS) {
        const flow: Flow = {
          reference: `lb3-${flows.length}-${randomUUID()}`.slice(0, 50),
          createKey: randomUUID(),
          captureKey: randomUUID(),
        };
        flows.push(flow);
        flow.created = await client.send('POST', '/epayment/v1/payments', paymentBody(flow.reference), flow.createKey, 201);
        await client.approve(flow.reference);
        const capture = { modificationAmount: { currency: 'NOK', value: CAPTURE } };
        flow.captured = await client.send('POST', `/epayment/v1/payments/${flow.reference}/capture`, capture, flow.captureKey, 200);
        finished += 1;
        // Not awaited: the other clients' requests are in flight on every instance meanwhile.
        if (finished === KILL_AFTER) void killed.kill();
        if (finished === TERMINATE_AFTER) drainExit = drained.terminate();
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, work));
    expect(killed.running).toBe(false);
    expect(await drainExit).toBe(0);
    // The stop line says what the drain did: the requests in flight were answered (their connections told to close,
    // so the drain did not wait for the balancer's), and its subscribers were told to reconnect elsewhere.
    expect(drained.output).toMatch(
      /"msg":"stopped".*"requests":"every request in flight answered","subscriptions":"\d+ socket\(s\) closed with 1012 Service Restart/,
    );
    expect(survivor.running).toBe(true);

    // Every operation once: a retry with the key got the first answer, whichever instance ran it or answered it.
    // The capture's answer shows the payment after it: one capture, not two.
    expect(flows.map((flow) => (flow.captured!.body as { aggregate: { capturedAmount: unknown } }).aggregate.capturedAmount)).toEqual(
      flows.map(() => ({ currency: 'NOK', value: CAPTURE })),
    );
    const capture = { modificationAmount: { currency: 'NOK', value: CAPTURE } };
    const again = await Promise.all(
      flows.map(async (flow) => ({
        created: await client.send('POST', '/epayment/v1/payments', paymentBody(flow.reference), flow.createKey, 201),
        captured: await client.send('POST', `/epayment/v1/payments/${flow.reference}/capture`, capture, flow.captureKey, 200),
      })),
    );
    expect(again).toEqual(flows.map((flow) => ({ created: flow.created, captured: flow.captured })));

    // What committed, from the outbox: each payment's events, in its order, and each operation's event once.
    const committed = await committedEvents(flows.map((flow) => flow.reference));
    const byPayment = groupByReference(committed);
    expect(flows.map((flow) => committed.filter((e) => e.reference === flow.reference).map((e) => e.name))).toEqual(
      flows.map(() => ['CREATED', 'AUTHORIZED', 'CAPTURED']),
    );
    const ids = new Set(committed.map((e) => e.eventId));

    // Every webhook got every committed event (a delivery taken over from the killed instance may come twice), its
    // first arrival in each payment's order, and nothing that did not commit.
    for (const path of ['/prompt', '/slow']) {
      const ours = () => webhooks.at(path).filter((r) => byPayment.has(r.body.reference as string));
      await webhooks.waitFor(() => new Set(ours().map((r) => r.eventId)).size >= ids.size, `every committed event at ${path}`, 60_000);
      expect(ours().every((r) => r.verified && ids.has(r.eventId))).toBe(true);
      expect(groupByReference(firstArrivals(ours()))).toEqual(byPayment);
    }
    // Every subscriber got every committed event once, each payment's in order, however often it resumed.
    for (const subscriber of subscribers) {
      await until(
        async () => subscriber.ours(byPayment).length >= ids.size || subscriber.failure !== undefined,
        'a subscriber to catch up',
      );
      expect(subscriber.failure).toBeUndefined();
      expect(subscriber.ours(byPayment).map((e) => e.eventId)).toHaveLength(ids.size);
      expect(groupByReference(subscriber.ours(byPayment))).toEqual(byPayment);
    }
    // Those on the killed and the drained instance came back through the balancer with `after:`.
    const resumed = subscribers.reduce((sum, subscriber) => sum + subscriber.connections - 1, 0);
    expect(resumed).toBeGreaterThanOrEqual(heldByVictims);
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));

    // A subscriber that comes afterwards, to the one instance left, resumes after the load's first event and gets
    // the rest, each once, in order.
    const late = new ResumingSubscriber(graphqlWsUrl(lb), params, committed[0]!.eventId);
    await until(async () => late.ours(byPayment).length >= ids.size - 1 || late.failure !== undefined, 'the late subscriber to catch up');
    expect(late.failure).toBeUndefined();
    expect(late.ours(byPayment).map((e) => e.eventId)).toEqual(
      [...committed.slice(1)].sort((a, b) => a.position - b.position).map((e) => e.eventId),
    );
    await late.close();
  }, 240_000);

  /** The load's committed payment events, from the outbox, in position (commit) order. */
  async function committedEvents(references: string[]): Promise<OutboxEvent[]> {
    const db = new pg.Client({ connectionString: database.databaseUrl });
    await db.connect();
    try {
      // Each event is positioned once it committed; wait for every one the load wrote.
      await until(
        async () =>
          (
            await db.query<{ n: number }>(
              `select count(*)::int as n from domain_event e left join event_position p on p.event_id = e.id
               where e.stream_type = 'payment' and e.payload->>'reference' = any($1) and p.position is null`,
              [references],
            )
          ).rows[0]!.n === 0,
        'every committed event to be positioned',
      );
      const { rows } = await db.query<{ event_id: string; reference: string; name: string; position: string }>(
        `select e.id::text as event_id, e.payload->>'reference' as reference, e.payload->>'name' as name, p.position::text as position
         from domain_event e join event_position p on p.event_id = e.id
         where e.stream_type = 'payment' and e.payload->>'reference' = any($1)
         order by p.position`,
        [references],
      );
      return rows.map((row) => ({ eventId: row.event_id, reference: row.reference, name: row.name, position: Number(row.position) }));
    } finally {
      await db.end();
    }
  }

  /** A token request (answered without a token, so charged to the client's address) sent from `source` through the balancer. */
  function tokenRequestFrom(
    source: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; remaining: string | undefined }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: balancer!.port,
          localAddress: source,
          agent: false,
          method: 'POST',
          path: '/accesstoken/get',
          headers: {
            client_id: MERCHANT_A.clientId,
            client_secret: MERCHANT_A.clientSecret,
            'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey,
            ...headers,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, remaining: /;r=(\d+)/.exec(String(res.headers.ratelimit))?.[1] }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  function tokenRequestsAnswered(metricsPort: number): Promise<number> {
    return metricOf(metricsPort, 'paygraph_http_requests_total', /route="\/accesstoken\/get"/);
  }
});

interface OutboxEvent {
  eventId: string;
  reference: string;
  name: string;
  position: number;
}

interface Answer {
  status: number;
  body: unknown;
}

interface Flow {
  reference: string;
  createKey: string;
  captureKey: string;
  created?: Answer;
  captured?: Answer;
}

/** Events by payment reference, each payment's as ids in the order given. */
function groupByReference(events: readonly { eventId: string; reference: string }[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const event of events) groups.set(event.reference, [...(groups.get(event.reference) ?? []), event.eventId]);
  return groups;
}

/** Each event's first delivery, in arrival order. */
function firstArrivals(received: readonly ReceivedWebhook[]): { eventId: string; reference: string }[] {
  const seen = new Set<string>();
  return received
    .filter((r) => !seen.has(r.eventId) && seen.add(r.eventId))
    .map((r) => ({ eventId: r.eventId, reference: r.body.reference }));
}

function paymentBody(reference: string): Record<string, unknown> {
  return {
    reference,
    amount: { currency: 'NOK', value: AMOUNT },
    paymentMethod: { type: 'WALLET' },
    customer: { phoneNumber: '4791234567' },
    userFlow: 'WEB_REDIRECT',
    returnUrl: 'https://merchant.example/return',
  };
}

/**
 * A merchant's backend as the platform asks it to behave: a request whose answer did not come (the connection broke,
 * the balancer answered 5xx, the key is still in flight on another instance) is sent again with the same key.
 */
class RetryingClient {
  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
  ) {}

  /** The request's answer once it is one, which must have status `expected`. */
  async send(method: string, path: string, body: unknown, idempotencyKey: string, expected: number): Promise<Answer> {
    const answer = await this.untilAnswered(method, path, body, { 'Idempotency-Key': idempotencyKey });
    if (answer.status !== expected) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  }

  /**
   * Force approve takes no key: when its answer is lost, the client reads the payment before it approves again (a
   * replayed approval of an approved payment is refused, which then also means it is done).
   */
  async approve(reference: string): Promise<void> {
    for (let attempt = 1; attempt <= 20; attempt++) {
      const answer = await this.attempt('POST', `/epayment/v1/test/payments/${reference}/approve`, {
        customer: { phoneNumber: '4791234567' },
      });
      if (answer?.status === 200) return;
      const payment = await this.untilAnswered('GET', `/epayment/v1/payments/${reference}`, undefined, {});
      if ((payment.body as { state?: string }).state === 'AUTHORIZED') return;
      if (answer && !transient(answer)) throw new Error(`approve ${reference}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    throw new Error(`approve ${reference}: no answer in 20 attempts`);
  }

  private async untilAnswered(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
    for (let attempt = 1; attempt <= 20; attempt++) {
      const answer = await this.attempt(method, path, body, headers);
      if (answer && !transient(answer)) return answer;
      // The client's back-off before it sends again.
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
    throw new Error(`${method} ${path}: no answer in 20 attempts`);
  }

  /** One try: the answer, or undefined when the connection broke before one came. */
  private async attempt(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer | undefined> {
    try {
      const res = await fetch(this.baseUrl + path, {
        method,
        headers: { ...this.headers, ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    } catch {
      return undefined;
    }
  }
}

/** An answer that is not the operation's: the balancer's or a stopping instance's 5xx, or the key still in flight. */
function transient(answer: Answer): boolean {
  const title = (answer.body as { title?: unknown } | undefined)?.title;
  return answer.status >= 500 || (answer.status === 409 && title === 'Order processing: concurrent request');
}

interface StreamedEvent {
  eventId: string;
  reference: string;
  name: string;
}

const PAYMENT_EVENTS = `subscription ($after: ID) { paymentEvents(after: $after) { event { eventId reference name } } }`;

/**
 * A graphql-ws subscriber that resumes as the platform tells clients to: when its socket closes (an instance stopped,
 * or died), it connects again (through the balancer, so to another instance) with `after:` the last event it got.
 */
class ResumingSubscriber {
  /** Every subscriber not yet closed. */
  static readonly open = new Set<ResumingSubscriber>();
  readonly events: StreamedEvent[] = [];
  /** Sockets the server acknowledged: one more for each resume. */
  connections = 0;
  failure: unknown;
  private client: Client | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly connectionParams: Record<string, unknown>,
    private readonly from = '0',
  ) {
    ResumingSubscriber.open.add(this);
    this.connect();
  }

  /** The events of the given payments, in arrival order. */
  ours(payments: ReadonlyMap<string, unknown>): StreamedEvent[] {
    return this.events.filter((event) => payments.has(event.reference));
  }

  async close(): Promise<void> {
    this.closed = true;
    ResumingSubscriber.open.delete(this);
    await this.client?.dispose();
  }

  private connect(): void {
    if (this.closed) return;
    const client = createClient({
      url: this.url,
      webSocketImpl: WebSocket,
      connectionParams: this.connectionParams,
      retryAttempts: 0,
      on: { connected: () => (this.connections += 1) },
    });
    this.client = client;
    const after = this.events.at(-1)?.eventId ?? this.from;
    client.subscribe<{ paymentEvents: { event: StreamedEvent } }>(
      { query: PAYMENT_EVENTS, variables: { after } },
      {
        next: (result) => {
          if (result.data) this.events.push(result.data.paymentEvents.event);
          else this.failure = result.errors;
        },
        // GraphQL errors end it; a closed socket is resumed, after the client's back-off.
        error: (error) => {
          if (Array.isArray(error)) this.failure = error;
          else this.resume(client);
        },
        complete: () => this.resume(client),
      },
    );
  }

  private resume(client: Client): void {
    if (this.client !== client || this.closed) return;
    void Promise.resolve(client.dispose()).catch(() => undefined);
    setTimeout(() => this.connect(), 100);
  }
}
