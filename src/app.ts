import { backfillPositions } from './platform/events/event-sequencer.js';
import { registerDashboardDocuments } from './pages/dashboard.page.js';
import { prepareRetention, pruneJob } from './platform/lifecycle/prune.job.js';
import type { Server } from 'node:http';
import { systemClock, type Clock } from './platform/clock.js';
import { TestClocks } from './platform/test-clocks.js';
import type { Config } from './config.js';
import type { RequestContext, Services } from './platform/context.js';
import { forkEm, openBackgroundLane, openDatabase, type DatabaseOptions, type Orm } from './platform/db/orm.js';
import { notificationListener } from './platform/events/notification-listener.js';
import { dispatchOutbox } from './platform/events/outbox-dispatcher.job.js';
import { DOMAIN_EVENT_CHANNEL, DomainEventBus } from './platform/events/domain-event-bus.js';
import { eventProjectors } from './platform/events/event-projectors.js';
import { eventTypes } from './platform/events/event-types.js';
import { createGraphQLServer, type GraphQLServerOptions } from './platform/graph/graphql-http.js';
import { attachSubscriptionServer } from './platform/graph/graphql-ws.js';
import { HttpSubscriptions } from './platform/graph/http-subscriptions.js';
import { SharedExecutions } from './platform/graph/subscription-sharing.js';
import { NodeRegistry } from './platform/graph/node-registry.js';
import { buildSchema } from './platform/graph/schema.js';
import { modules as allModules } from './modules.js';
import type { DomainModule } from './platform/module.js';
import type { CoverageProvider } from './platform/auth/coverage.js';
import { RequestLimiter } from './platform/rate-limit/request-limiter.js';
import { frontPageRoute } from './pages/front.page.js';
import { logError } from './log.js';
import { createHttpServer } from './platform/http/http-server.js';
import { Metrics } from './platform/observability/metrics.js';
import type { RestInterface } from './platform/rest/rest-interface.js';
import { Router } from './platform/rest/router.js';
import { Scheduler } from './platform/jobs/scheduler.js';
import { checkStateMachines } from './platform/state-machine.js';
import { callbackChannel } from './platform/delivery/callback-channel.js';
import { DeliveryEngine } from './platform/delivery/delivery-engine.js';
import { callbackKinds } from './platform/delivery/callback-kinds.js';

export interface AppOptions {
  clock?: Clock;
  /** Called with every SQL statement (tests count statements). */
  onQuery?: (sql: string) => void;
  /** The domains to serve; all of them unless a test narrows or extends the list. */
  modules?: readonly DomainModule[];
  /** The embedded in-memory database's starting point (tests: a dump of a migrated database). */
  pglite?: DatabaseOptions['pglite'];
  /** Apollo Server plugins beside the graph's own (tests: one that counts the operations Apollo Server runs). */
  graphPlugins?: GraphQLServerOptions['plugins'];
}

export interface App {
  server: Server;
  services: Services;
  router: Router;
  /** Prometheus metrics; main.ts serves them on METRICS_PORT. */
  metrics: Metrics;
  /** Listens on `port` (0: any free port) and resolves with the port. */
  listen(port: number): Promise<number>;
  /** Closes at once: connections cut, jobs stopped, database closed. */
  close(): Promise<void>;
  /**
   * SIGTERM's graceful stop: takes no new traffic (`/readyz` 503, the listening socket closed), tells subscribers to
   * reconnect elsewhere (1012 Service Restart), lets requests in flight finish (until `deadlineMs`), finishes the
   * deliveries it has claimed so no lease outlives it, then closes. Resolves with what it did.
   */
  shutdown(deadlineMs: number): Promise<ShutdownReport>;
}

/** What a graceful stop did, for its last log line. */
export interface ShutdownReport {
  /** Subscribers' sockets closed with 1012 Service Restart. */
  subscriptionSockets: number;
  /** Requests still unanswered at the deadline, whose connections were cut; false: every one was answered. */
  requestsCut: boolean;
  /** Whether this instance ran the background jobs (PAYGRAPH_RUN_JOBS), which it stopped. */
  jobsStopped: boolean;
}

/** The background lane's pool: the outbox fan-out, a claim and a batch of records at once, and one to spare. */
const BACKGROUND_LANE_CONNECTIONS = 4;

/** Builds the whole service without listening: database, seed, routes, graph and jobs. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const modules = options.modules ?? allModules;
  checkStateMachines(modules.flatMap((m) => m.stateMachines ?? []));
  const database: DatabaseOptions = {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onQuery: options.onQuery,
    pglite: options.pglite,
    entities: modules.flatMap((m) => m.entities ?? []),
    migrations: modules.flatMap((m) => m.migrations ?? []),
  };
  const orm: Orm = await openDatabase(database);
  // The outbox fan-out and the deliveries take their connections from a lane of their own, never queued behind
  // requests (see openBackgroundLane).
  const lane: Orm = await openBackgroundLane(orm, database, BACKGROUND_LANE_CONNECTIONS);
  // Real time; in the test environment each sales unit's test clock runs ahead of it by however far it was moved.
  const clock = options.clock ?? systemClock;
  const testClocks = new TestClocks(clock);
  if (config.env === 'test') await testClocks.load(forkEm(orm));
  for (const module of modules) {
    for (const definition of module.eventTypes ?? []) eventTypes.register(definition);
    for (const projector of module.projectors ?? []) eventProjectors.register(projector);
    for (const kind of module.callbackKinds ?? []) callbackKinds.register(kind);
  }
  // Events older than positions get theirs before this instance serves a resume (event-sequencer.ts); the release
  // before, serving meanwhile, reads by id and needs none.
  await backfillPositions(forkEm(orm));
  const events = new DomainEventBus(orm, notificationListener(orm, config.databaseUrl, DOMAIN_EVENT_CHANNEL));
  events.hearCommitsOf(orm, lane);
  await events.start();
  const nodes = new NodeRegistry<RequestContext>();
  for (const module of modules) if (module.nodes) nodes.register(module.nodes);
  const metrics = new Metrics(orm, clock);
  const rateLimiter = RequestLimiter.create(config);
  const services: Services = {
    config,
    orm,
    clock,
    testClocks,
    salesUnits: coverageOf(modules),
    events,
    nodes,
    rateLimiter,
    metrics,
    retention: modules.flatMap((m) => m.retention ?? []),
  };
  // The days ahead of a time-partitioned table exist before anything is written to it.
  await prepareRetention(services, services.retention!);
  for (const gauge of modules.flatMap((m) => m.gauges?.(services) ?? [])) metrics.addDatabaseGauge(gauge);
  const jobRun = metrics.jobRun.bind(metrics);
  // Each module seeds its own fixed data of the test environment, in the order of the list (merchants before the
  // ledgers and PSP sales units that name them).
  if (config.env === 'test') {
    for (const module of modules) {
      const em = forkEm(orm);
      await module.seedTestEnvironment?.(em, clock.now());
      await em.flush();
    }
  }

  await registerDashboardDocuments(forkEm(orm), clock.now());

  const router = new Router();
  for (const module of modules) {
    const declared = module.routes?.(services) ?? [];
    router.add(...(Array.isArray(declared) ? (declared as readonly RestInterface[]) : [declared as RestInterface]));
    if (module.pages) router.addPages(...module.pages(services));
  }
  router.addPages(frontPageRoute(config, () => router.declaredInterfaces));
  const schema = buildSchema(modules.flatMap((m) => m.resolvers ?? []));
  const apollo = await createGraphQLServer(services, schema, { plugins: options.graphPlugins });
  const scheduler = new Scheduler(
    [
      // Another instance may have moved a unit's test clock: every run first reads where each unit's time is.
      ...(config.env === 'test'
        ? [{ name: 'read-test-clocks', run: () => testClocks.load(forkEm(orm)), nextDueFor: () => Promise.resolve(null) }]
        : []),
      ...modules.flatMap((m) => m.jobs?.(services) ?? []),
      pruneJob(services, services.retention!),
    ],
    config.jobIntervalMs,
    jobRun,
  );
  services.runJobsNow = () => scheduler.runOnce();
  services.nextJobDueFor = (msn) => scheduler.nextDueFor(msn);
  const instanceJobs = new Scheduler(
    modules.flatMap((m) => m.instanceJobs?.(services) ?? []),
    config.flushIntervalMs,
    jobRun,
  );
  // Deliveries run apart from expiry, never waiting behind it, and apart from the outbox fan-out, so a claim never
  // waits for a dispatch. A committed event (this instance's commit, or one the bus found from another instance) wakes
  // the fan-out, which wakes the deliveries when it made some; recorded outcomes wake them too, so the next event of a
  // stream goes out at once, not at the next tick. Outbound callbacks, recorded with an event, are woken by its commit
  // too, else by the tick.
  const background: Services = { ...services, orm: lane };
  const channels = [callbackChannel(background), ...modules.flatMap((m) => m.deliveryChannels?.(background) ?? [])];
  const deliveries = new DeliveryEngine(background, channels, () => deliveryJobs.wake());
  const deliveryJobs = new Scheduler([{ name: 'deliver', run: () => deliveries.run() }], config.jobIntervalMs, jobRun);
  const webhookJobs = new Scheduler(
    [
      {
        name: 'dispatch-outbox',
        run: async () => {
          if ((await dispatchOutbox(background)) === 0) return;
          deliveryJobs.wake();
        },
      },
    ],
    config.jobIntervalMs,
    jobRun,
  );
  // Only where the jobs run: elsewhere the wake-up would do nothing, and the bus need not read for it.
  if (config.runJobs)
    events.onCommitted(() => {
      webhookJobs.wake();
      deliveryJobs.wake();
    });

  const observers = modules.flatMap((m) => (m.requestObserver ? [m.requestObserver(services)] : []));
  const limitedRoutes = new Map(modules.flatMap((m) => m.rateLimitedRoutes ?? []).map((r) => [`${r.method} ${r.pattern}`, r]));
  // One subscription executor for every transport: an event's execution for an operation is shared by its
  // subscribers on sockets and on HTTP streams alike.
  const sharing = new SharedExecutions(services);
  const streams = new HttpSubscriptions(services, schema, sharing);
  const http = createHttpServer(services, router, { apollo, streams }, observers, limitedRoutes);
  const server = http.server;
  const subscriptions = attachSubscriptionServer(server, services, schema, sharing);
  metrics.openSubscriptions = () => subscriptions.openSockets() + streams.openStreams();
  metrics.subscriptionFanOut = () => {
    const socket = subscriptions.fanOut();
    return { executions: socket.executions, notifications: socket.notifications + streams.sent.notifications };
  };
  if (config.runJobs) {
    scheduler.start();
    webhookJobs.start();
    deliveryJobs.start();
  }
  // What this instance holds in memory is lost with it, so it is written out on every instance, jobs or not.
  instanceJobs.start();

  const stopWork = async () => {
    await scheduler.stop();
    await webhookJobs.stop();
    await deliveryJobs.stop();
    await instanceJobs.stop();
    await deliveries.drain();
  };
  const closeRest = async () => {
    await apollo.stop();
    for (const module of modules) {
      try {
        await module.onClose?.(services);
      } catch (error) {
        logError(`closing module ${module.name} failed`, error);
      }
    }
    await events.stop();
    await rateLimiter.close();
    if (lane !== orm) await lane.close(true);
    await orm.close(true);
  };

  return {
    server,
    services,
    router,
    metrics,
    listen: (port) => http.listen(port),
    close: async () => {
      await subscriptions.close();
      await stopWork();
      await http.close();
      await closeRest();
    },
    shutdown: async (deadlineMs) => {
      const subscriptionSockets = subscriptions.openSockets();
      const started = performance.now();
      // The drain cuts connections only once the deadline passed.
      const draining = http.drain(deadlineMs).then(() => performance.now() - started >= deadlineMs);
      await subscriptions.close({ code: 1012, reason: 'Service Restart' }, deadlineMs);
      const requestsCut = await draining;
      await stopWork();
      await closeRest();
      return { subscriptionSockets, requestsCut, jobsStopped: config.runJobs };
    },
  };
}

/** The one coverage provider a module registers (coverage.ts); without exactly one, no request could be scoped. */
function coverageOf(modules: readonly DomainModule[]): CoverageProvider {
  const providers = modules.flatMap((m) => (m.coverage ? [m.coverage] : []));
  if (providers.length !== 1) throw new Error(`Exactly one module must provide sales unit coverage; ${providers.length} do`);
  return providers[0]!;
}
