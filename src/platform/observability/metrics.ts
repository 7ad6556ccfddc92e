import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../clock.js';
import { forkEm, type Orm } from '../db/orm.js';
import { WEBHOOK_KIND } from '../delivery/delivery.entity.js';
import { listenForMetrics, type MetricsEndpoint } from './metrics-endpoint.js';

/**
 * The service's Prometheus metrics, one registry per app (tests run several apps in one process), served on their
 * own port (`METRICS_PORT`, `/metrics`) so a scrape never goes through the public balancer. What each means is in
 * the README ("Metrics"). Values that live in the database (outbox lag, due deliveries) are read at scrape time,
 * one indexed statement each; what happens in this process is counted as it happens.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'interface' | 'route' | 'method' | 'status'>;
  private readonly requestSeconds: Histogram<'interface' | 'route' | 'method'>;
  private readonly graphqlOperations: Counter<'operation' | 'outcome'>;
  private readonly deliveries: Counter<'kind' | 'outcome'>;
  private readonly deliverySeconds: Histogram<'kind'>;
  private readonly jobRuns: Counter<'job' | 'outcome'>;
  private readonly jobSeconds: Histogram<'job'>;
  /** Open graphql-ws sockets; set by the subscription server once it exists. */
  openSubscriptions: () => number = () => 0;
  /** The subscription server's counts since start; set by it once it exists. */
  subscriptionFanOut: () => { executions: number; notifications: number } = () => ({ executions: 0, notifications: 0 });

  constructor(orm: Orm, clock: Clock) {
    collectDefaultMetrics({ register: this.registry, prefix: 'paygraph_process_' });
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'paygraph_http_requests_total',
      help: 'Answered HTTP requests by interface, route pattern, method and status',
      labelNames: ['interface', 'route', 'method', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'paygraph_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer being sent',
      labelNames: ['interface', 'route', 'method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.graphqlOperations = new Counter({
      name: 'paygraph_graphql_operations_total',
      help: 'GraphQL operations over HTTP by operation name and outcome (ok, or the HTTP status class)',
      labelNames: ['operation', 'outcome'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'paygraph_deliveries_total',
      help: 'Outbound delivery attempts (webhooks, callbacks) by outcome: delivered, retry, failed',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.deliverySeconds = new Histogram({
      name: 'paygraph_delivery_attempt_duration_seconds',
      help: 'Duration of one outbound delivery attempt',
      labelNames: ['kind'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.jobRuns = new Counter({
      name: 'paygraph_job_runs_total',
      help: 'Background job runs by job and outcome (ok, failed)',
      labelNames: ['job', 'outcome'],
      registers,
    });
    this.jobSeconds = new Histogram({
      name: 'paygraph_job_run_duration_seconds',
      help: 'Duration of one background job run',
      labelNames: ['job'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
      registers,
    });
    const openSubscriptions = () => this.openSubscriptions();
    new Gauge({
      name: 'paygraph_subscriptions_open',
      help: 'Open graphql-ws sockets on this instance',
      registers,
      collect() {
        this.set(openSubscriptions());
      },
    });
    const fanOut = () => this.subscriptionFanOut();
    new Counter({
      name: 'paygraph_subscription_executions_total',
      help: 'Executions of an event for a subscribed operation; every subscriber holding the same operation shares one',
      registers,
      collect() {
        this.reset();
        this.inc(fanOut().executions);
      },
    });
    new Counter({
      name: 'paygraph_subscription_notifications_total',
      help: 'Notifications (graphql-ws next messages) sent to subscribers',
      registers,
      collect() {
        this.reset();
        this.inc(fanOut().notifications);
      },
    });
    new Gauge({
      name: 'paygraph_outbox_lag_seconds',
      help: 'Age of the oldest event not yet dispatched to webhooks and subscribers (0: none waiting)',
      registers,
      async collect() {
        this.set(await oldestAgeSeconds(orm, clock, `select min(occurred_at) as at from domain_event where dispatched_at is null`));
      },
    });
    new Gauge({
      name: 'paygraph_delivery_lag_seconds',
      help: 'How long the most overdue pending delivery has been due, by kind (0: none overdue)',
      labelNames: ['kind'],
      registers,
      async collect() {
        const due = `from delivery where status = 'pending' and next_attempt_at <= ?`;
        this.set(
          { kind: 'webhook' },
          await oldestAgeSeconds(orm, clock, `select min(next_attempt_at) as at ${due} and kind = '${WEBHOOK_KIND}'`, true),
        );
        this.set(
          { kind: 'callback' },
          await oldestAgeSeconds(orm, clock, `select min(next_attempt_at) as at ${due} and kind <> '${WEBHOOK_KIND}'`, true),
        );
      },
    });
    new Gauge({
      name: 'paygraph_db_pool_connections',
      help: 'PostgreSQL pool connections by state: total, idle, waiting (requests queued for one)',
      labelNames: ['state'],
      registers,
      async collect() {
        const pool = await databasePool(orm);
        if (!pool) return;
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }

  /** One answered request; `route` is the route's pattern (never the raw path, whose ids would explode the series). */
  request(answer: { interface: string; route: string; method: string; status: number; seconds: number }): void {
    this.requests.inc({ interface: answer.interface, route: answer.route, method: answer.method, status: String(answer.status) });
    this.requestSeconds.observe({ interface: answer.interface, route: answer.route, method: answer.method }, answer.seconds);
  }

  /** Names come from clients: past this many distinct ones, the rest count as `other`, so no client can grow the series. */
  private readonly operationNames = new Set<string>();

  graphqlOperation(operation: string, status: number): void {
    if (!this.operationNames.has(operation) && this.operationNames.size < MAX_OPERATION_NAMES) this.operationNames.add(operation);
    const name = this.operationNames.has(operation) ? operation : 'other';
    this.graphqlOperations.inc({ operation: name, outcome: status < 400 ? 'ok' : `${Math.floor(status / 100)}xx` });
  }

  delivery(kind: 'webhook' | 'callback', outcome: 'delivered' | 'retry' | 'failed', seconds: number): void {
    this.deliveries.inc({ kind, outcome });
    this.deliverySeconds.observe({ kind }, seconds);
  }

  jobRun(job: string, ok: boolean, seconds: number): void {
    this.jobRuns.inc({ job, outcome: ok ? 'ok' : 'failed' });
    this.jobSeconds.observe({ job }, seconds);
  }

  /**
   * A gauge a domain reads from the database at scrape time (one cheap statement), so every instance reports the
   * same value: dashboards aggregate it with max, not sum.
   */
  addDatabaseGauge(gauge: DatabaseGauge): void {
    new Gauge({
      name: gauge.name,
      help: gauge.help,
      labelNames: [...gauge.labelNames],
      registers: [this.registry],
      async collect() {
        for (const { labels, value } of await gauge.read()) this.set(labels, value);
      },
    });
  }

  /** Serves `/metrics` on its own port (0: any free port). */
  async serve(port: number): Promise<MetricsEndpoint> {
    const endpoint = await listenForMetrics(port);
    endpoint.serve(this);
    return endpoint;
  }
}

const MAX_OPERATION_NAMES = 200;

/** A gauge of values that live in the database, declared by the domain that owns them (`gauges` of its module). */
export interface DatabaseGauge {
  name: string;
  help: string;
  labelNames: readonly string[];
  /** Every series' labels and value, read now. */
  read(): Promise<{ labels: Record<string, string>; value: number }[]>;
}

async function oldestAgeSeconds(orm: Orm, clock: Clock, sql: string, withNow = false): Promise<number> {
  const now = clock.now();
  const rows = await forkEm(orm).execute<{ at: Date | string | null }[]>(sql, withNow ? [now] : []);
  const at = rows[0]?.at;
  if (at === null || at === undefined) return 0;
  return Math.max(0, (now.getTime() - new Date(at).getTime()) / 1000);
}

interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The `pg` pool behind the ORM on PostgreSQL; PGlite is one embedded connection, with no pool to report. */
async function databasePool(orm: Orm): Promise<PoolCounts | undefined> {
  const connection = orm.em.getConnection() as { getNativeClient?: () => Promise<unknown> };
  const client = await connection.getNativeClient?.();
  return typeof client === 'object' && client !== null && 'totalCount' in client ? (client as PoolCounts) : undefined;
}
