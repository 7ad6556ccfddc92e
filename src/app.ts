import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import { systemClock, type Clock } from './platform/clock.js';
import { TestClocks } from './platform/test-clocks.js';
import type { Config } from './config.js';
import type { RequestContext, Services } from './platform/context.js';
import { forkEm, openDatabase, type DatabaseOptions, type Orm } from './platform/db/orm.js';
import { AppError } from './platform/errors/app-error.js';
import { notificationListener } from './platform/events/notification-listener.js';
import { dispatchOutbox } from './platform/events/outbox-dispatcher.job.js';
import { DOMAIN_EVENT_CHANNEL, DomainEventBus } from './platform/events/domain-event-bus.js';
import { eventProjectors, projectionSubscriber } from './platform/events/event-projectors.js';
import { eventTypes } from './platform/events/event-types.js';
import type { GraphQLContext } from './platform/graph/graphql-context.js';
import { createGraphQLServer, handleGraphQLRequest } from './platform/graph/graphql-http.js';
import { attachSubscriptionServer } from './platform/graph/graphql-ws.js';
import { NodeRegistry } from './platform/graph/node-registry.js';
import { buildSchema } from './platform/graph/schema.js';
import { modules as allModules } from './modules.js';
import type { DomainModule } from './platform/module.js';
import type { CoverageProvider } from './platform/auth/coverage.js';
import { ClientClosedRequest, MAX_BODY_BYTES, readBody } from './platform/rest/body.js';
import type { HttpRequest, HttpResponse } from './platform/rest/http-types.js';
import type { RequestObserver } from './platform/rest/request-observer.js';
import { epaymentProblem } from './platform/rest/error-formats/epayment-problem.js';
import { asAppError } from './platform/rest/error-formats/error-format.js';
import { logError, logRequest } from './log.js';
import { admitGraphRequest, admitRestRequest, afterRestRequest, withRateLimitFields } from './platform/rate-limit/admission.js';
import { refusalFields, type RateLimitState } from './platform/rate-limit/rate-limit-fields.js';
import type { RateLimitedRoute } from './platform/rate-limit/rate-limited-route.js';
import { RequestLimiter } from './platform/rate-limit/request-limiter.js';
import type { RestInterface } from './platform/rest/rest-interface.js';
import { Router } from './platform/rest/router.js';
import { Scheduler } from './platform/jobs/scheduler.js';
import { checkStateMachines } from './platform/state-machine.js';
import { seedTestEnvironment } from './test-environment/test-environment.seed.js';
import { CallbackDeliverer } from './platform/delivery/callback-deliverer.job.js';
import { callbackKinds } from './platform/delivery/callback-kinds.js';
import { WebhookDeliverer } from './platform/delivery/webhook-deliverer.job.js';
import { wantsGraphQLIde } from './pages/pages.routes.js';
import { refuseControlCharacters } from './platform/rest/request-text.js';
import { frontPageRoute } from './pages/front.page.js';

export interface AppOptions {
  clock?: Clock;
  /** Called with every SQL statement (tests count statements). */
  onQuery?: (sql: string) => void;
  /** The domains to serve; all of them unless a test narrows or extends the list. */
  modules?: readonly DomainModule[];
  /** The embedded in-memory database's starting point (tests: a dump of a migrated database). */
  pglite?: DatabaseOptions['pglite'];
}

export interface App {
  server: Server;
  services: Services;
  router: Router;
  /** Listens on `port` (0: any free port) and resolves with the port. */
  listen(port: number): Promise<number>;
  close(): Promise<void>;
}

/** Builds the whole service without listening: database, seed, routes, graph and jobs. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const modules = options.modules ?? allModules;
  checkStateMachines(modules.flatMap((m) => m.stateMachines ?? []));
  const orm: Orm = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onQuery: options.onQuery,
    pglite: options.pglite,
    entities: modules.flatMap((m) => m.entities ?? []),
    migrations: modules.flatMap((m) => m.migrations ?? []),
  });
  // Real time; in the test environment each sales unit's test clock runs ahead of it by however far it was moved.
  const clock = options.clock ?? systemClock;
  const testClocks = new TestClocks(clock);
  if (config.env === 'test') await testClocks.load(forkEm(orm));
  orm.em.getEventManager().registerSubscriber(projectionSubscriber);
  for (const module of modules) {
    for (const definition of module.eventTypes ?? []) eventTypes.register(definition);
    for (const projector of module.projectors ?? []) eventProjectors.register(projector);
    for (const kind of module.callbackKinds ?? []) callbackKinds.register(kind);
  }
  const events = new DomainEventBus(orm, notificationListener(orm, config.databaseUrl, DOMAIN_EVENT_CHANNEL));
  await events.start();
  const nodes = new NodeRegistry<RequestContext>();
  for (const module of modules) if (module.nodes) nodes.register(module.nodes);
  const rateLimiter = await RequestLimiter.create(config);
  const services: Services = {
    config,
    orm,
    clock,
    testClocks,
    salesUnits: coverageOf(modules),
    events,
    paymentEvents: events,
    nodes,
    rateLimiter,
  };
  if (config.env === 'test') {
    await seedTestEnvironment(forkEm(orm), clock.now());
    for (const module of modules) {
      const em = forkEm(orm);
      await module.seedTestEnvironment?.(em, clock.now());
      await em.flush();
    }
  }

  const router = new Router();
  for (const module of modules) {
    const declared = module.routes?.(services) ?? [];
    router.add(...(Array.isArray(declared) ? (declared as readonly RestInterface[]) : [declared as RestInterface]));
    if (module.pages) router.addPages(...module.pages(services));
  }
  router.addPages(frontPageRoute(config, () => router.declaredInterfaces));
  const schema = buildSchema(modules.flatMap((m) => m.resolvers ?? []));
  const apollo = await createGraphQLServer(services, schema);
  const scheduler = new Scheduler(
    [
      // Another instance may have moved a unit's test clock: every run first reads where each unit's time is.
      ...(config.env === 'test' ? [{ name: 'read-test-clocks', run: () => testClocks.load(forkEm(orm)) }] : []),
      ...modules.flatMap((m) => m.jobs?.(services) ?? []),
    ],
    config.jobIntervalMs,
  );
  services.runJobsNow = () => scheduler.runOnce();
  const instanceJobs = new Scheduler(
    modules.flatMap((m) => m.instanceJobs?.(services) ?? []),
    config.flushIntervalMs,
  );
  // Webhooks run apart from expiry, never waiting behind it. A committed event (heard through LISTEN) and a
  // settled POST wake them, so an event, and the next event of that payment, go out at once, not at the next tick.
  // Outbound callbacks ride along: recorded with an event, they are woken by its commit too, else by the tick.
  const deliverer = new WebhookDeliverer(services, () => webhookJobs.wake());
  const callbacks = new CallbackDeliverer(services, () => webhookJobs.wake());
  const webhookJobs = new Scheduler(
    [
      { name: 'dispatch-outbox', run: () => dispatchOutbox(services) },
      { name: 'deliver-webhooks', run: () => deliverer.run() },
      { name: 'deliver-callbacks', run: () => callbacks.run() },
    ],
    config.jobIntervalMs,
  );
  events.onCommitted(() => webhookJobs.wake());

  const observers = modules.flatMap((m) => (m.requestObserver ? [m.requestObserver(services)] : []));
  const limitedRoutes = new Map(modules.flatMap((m) => m.rateLimitedRoutes ?? []).map((r) => [`${r.method} ${r.pattern}`, r]));
  // An idle keep-alive connection stays open longer than clients keep theirs (undici: the server's hint less a
  // second; load balancers: 60 s), so the client always closes first. With Node's 5 s default, a client reusing a
  // connection that the server was closing at that moment got ECONNRESET for a request the service never saw.
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    void handle(services, router, apollo, req, res, observers, limitedRoutes);
  });
  const subscriptions = attachSubscriptionServer(server, services, schema);
  if (config.runJobs) {
    scheduler.start();
    webhookJobs.start();
  }
  // What this instance holds in memory is lost with it, so it is written out on every instance, jobs or not.
  instanceJobs.start();

  return {
    server,
    services,
    router,
    listen: (port) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, () => {
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      }),
    close: async () => {
      await subscriptions.close();
      await scheduler.stop();
      await webhookJobs.stop();
      await instanceJobs.stop();
      await deliverer.drain();
      await callbacks.drain();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
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
      await orm.close(true);
    },
  };
}

/** The one coverage provider a module registers (coverage.ts); without exactly one, no request could be scoped. */
function coverageOf(modules: readonly DomainModule[]): CoverageProvider {
  const providers = modules.flatMap((m) => (m.coverage ? [m.coverage] : []));
  if (providers.length !== 1) throw new Error(`Exactly one module must provide sales unit coverage; ${providers.length} do`);
  return providers[0]!;
}

async function handle(
  services: Services,
  router: Router,
  apollo: ApolloServer<GraphQLContext>,
  req: IncomingMessage,
  res: ServerResponse,
  observers: readonly RequestObserver[] = [],
  limitedRoutes: ReadonlyMap<string, RateLimitedRoute> = new Map(),
): Promise<void> {
  const started = performance.now();
  const url = new URL(req.url ?? '/', 'http://localhost');
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  const request: HttpRequest = {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    params: {},
    rawBody: Buffer.alloc(0),
    traceId: randomUUID(),
    signal: gone.signal,
    remoteAddress: req.socket.remoteAddress,
  };
  let response: HttpResponse;
  let failure: unknown;
  try {
    request.rawBody = await readBody(req, router.bodyLimitFor(request, MAX_BODY_BYTES));
    response = await route(services, router, apollo, request, limitedRoutes);
  } catch (error) {
    if (error instanceof ClientClosedRequest) {
      // Nobody is left to answer; logged as nginx does (499, client closed request), observed by nobody.
      if (services.config.logRequests) logRequest({ ...requestLine(request, req, started), status: CLIENT_CLOSED_REQUEST });
      return;
    }
    failure = error;
    // A body too large is refused before routing: it still answers in the format of the path's interface.
    response = router.errorFormatFor(request.path, epaymentProblem).render(asAppError(error), request);
  }
  if (failure && !(failure instanceof AppError)) logError('request failed', failure, { traceId: request.traceId, path: request.path });
  send(res, response, request.traceId);
  if (observers.length > 0) observe(observers, request, response.status, services.clock.now());
  if (services.config.logRequests) logRequest({ ...requestLine(request, req, started), status: response.status });
}

/** The status logged for a request whose client hung up before it was read (nginx's "client closed request"). */
const CLIENT_CLOSED_REQUEST = 499;

function requestLine(request: HttpRequest, req: IncomingMessage, started: number) {
  return {
    method: request.method,
    path: request.path,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    traceId: request.traceId,
    msn: typeof req.headers['merchant-serial-number'] === 'string' ? req.headers['merchant-serial-number'] : undefined,
  };
}

async function route(
  services: Services,
  router: Router,
  apollo: ApolloServer<GraphQLContext>,
  request: HttpRequest,
  limitedRoutes: ReadonlyMap<string, RateLimitedRoute>,
): Promise<HttpResponse> {
  if (request.path === '/healthz') return { status: 200, body: { status: 'ok' } };
  if (request.path === '/graphql' && !wantsGraphQLIde(request)) {
    request.routePattern = '/graphql';
    const refused = await admitGraphRequest(services, request);
    if (refused) return graphRateLimited(request, refused.state);
    return handleGraphQLRequest(services, apollo, request);
  }
  // Every answer under an interface's prefix, errors included, is in that interface's format; outside every
  // prefix, the ePayment problem.
  const errorFormat = router.errorFormatFor(request.path, epaymentProblem);
  try {
    const match = router.match(request);
    if (!match) throw new AppError('NOT_FOUND', `No route for ${request.method} ${request.path}`);
    if ('allowed' in match) {
      const response = errorFormat.render(
        new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${request.path}`),
        request,
      );
      return { ...response, headers: { ...response.headers, allow: match.allowed.join(', ') } };
    }
    if ('document' in match) return { status: 200, body: match.document };
    request.params = match.params;
    request.routePattern = match.route.pattern;
    refuseControlCharacters(request);
    // The one place REST requests and pages meet the rate limiter (the graph: by cost, in its own face).
    const admission = await admitRestRequest(services, request, limitedRoutes.get(`${request.method} ${match.route.pattern}`));
    if (!admission.allowed) {
      const refusal = errorFormat.render(new AppError('RATE_LIMITED', rateLimitMessage(admission.state)), request);
      return { ...refusal, headers: { ...refusal.headers, ...refusalFields(admission.state) } };
    }
    const response = await match.route.run(request).catch((error: unknown) => {
      if (!(error instanceof AppError)) logError('request failed', error, { traceId: request.traceId, path: request.path });
      return errorFormat.render(asAppError(error), request);
    });
    await afterRestRequest(services, request, response);
    return withRateLimitFields(response, admission.state);
  } catch (error) {
    if (!(error instanceof AppError)) logError('request failed', error, { traceId: request.traceId, path: request.path });
    return errorFormat.render(asAppError(error), request);
  }
}

function rateLimitMessage(state: RateLimitState): string {
  return `Rate limit exceeded (${state.policy}: ${state.quota} per ${state.windowSeconds} s); retry after the Retry-After seconds`;
}

/** The graph's refusal of a request without a valid token that is over its address's quota: its error shape, 429. */
function graphRateLimited(request: HttpRequest, state: RateLimitState): HttpResponse {
  return {
    status: 429,
    headers: { 'content-type': 'application/json', ...refusalFields(state) },
    body: { errors: [{ message: rateLimitMessage(state), extensions: { code: 'RATE_LIMITED', traceId: request.traceId } }] },
  };
}

/** Tells each observer of the answered request; an observer's failure never reaches the client. */
function observe(observers: readonly RequestObserver[], request: HttpRequest, status: number, at: Date): void {
  const header = request.headers['merchant-serial-number'];
  const msn = typeof header === 'string' && header !== '' ? header : request.params.msn;
  const observed = {
    method: request.method,
    pattern: request.routePattern ?? request.path,
    msn,
    status,
    authenticated: request.authenticated === true,
    at,
  };
  for (const observer of observers) {
    try {
      observer(observed);
    } catch (error) {
      logError('request observer failed', error, { traceId: request.traceId, path: request.path });
    }
  }
}

function send(res: ServerResponse, response: HttpResponse, traceId: string): void {
  const headers: Record<string, string> = { 'x-trace-id': traceId, ...response.headers };
  let text: string | Buffer | undefined;
  if (response.body === undefined) text = undefined;
  else if (typeof response.body === 'string' || Buffer.isBuffer(response.body)) text = response.body;
  else {
    text = JSON.stringify(response.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  // Encoded once: measuring a string's length and then writing it encodes it twice (1.7 ms against 0.6 ms for a
  // 250 KB report page).
  const body = typeof text === 'string' ? Buffer.from(text) : text;
  if (body !== undefined) headers['content-length'] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}
