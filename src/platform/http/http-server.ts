import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import { trace } from '@opentelemetry/api';
import type { Services } from '../context.js';
import { AppError } from '../errors/app-error.js';
import type { GraphQLContext } from '../graph/graphql-context.js';
import { handleGraphQLRequest } from '../graph/graphql-http.js';
import { ClientClosedRequest, MAX_BODY_BYTES, readBody } from '../rest/body.js';
import { admitRestRequest, chargeAuthenticated, withRateLimitFields } from '../rate-limit/admission.js';
import type { RateLimitedRoute } from '../rate-limit/rate-limited-route.js';
import { RateLimitRefusal } from '../rate-limit/rate-limit-refusal.js';
import { refuseControlCharacters } from '../rest/request-text.js';
import { STREAM_DRAINING, STREAM_GONE, type HttpRequest, type HttpResponse, type StreamOut } from '../rest/http-types.js';
import type { RequestObserver } from '../rest/request-observer.js';
import { epaymentProblem } from '../rest/error-formats/epayment-problem.js';
import { asAppError, type ErrorFormat } from '../rest/error-formats/error-format.js';
import { Router, type RouteMatch } from '../rest/router.js';
import { logError, logRequest } from '../../log.js';
import { wantsGraphQLIde } from '../graph/graphql-ide-request.js';
import { operationNameOf } from '../graph/operation-name.js';
import { GRAPHQL_STREAM_PATH, streamProtocolOf, type HttpSubscriptions } from '../graph/http-subscriptions.js';
import { Readiness } from './readiness.js';

/**
 * Serving, apart from composing (app.ts): the HTTP server, the one front every request passes (body, routing, error
 * format, log line, observers), the health and readiness probes, and a graceful drain for SIGTERM.
 */
export interface HttpServer {
  server: Server;
  readiness: Readiness;
  /** Listens on `port` (0: any free port) and resolves with the port. */
  listen(port: number): Promise<number>;
  /**
   * Stops taking traffic and lets what is in flight finish: `/readyz` answers 503, the listening socket closes
   * (the balancer sends new connections to another instance), idle keep-alive connections close, and every
   * answer from now on says `Connection: close`. Resolves when the last request is answered, or at `deadlineMs`
   * by cutting whatever is left.
   */
  drain(deadlineMs: number): Promise<void>;
  /** Closes at once, cutting every connection (tests, and after a drain). */
  close(): Promise<void>;
}

/** The graph's HTTP faces: Apollo Server for queries and mutations, the HTTP subscription transports for streams. */
export interface GraphFaces {
  apollo: ApolloServer<GraphQLContext>;
  streams: HttpSubscriptions;
}

export function createHttpServer(
  services: Services,
  router: Router,
  graph: GraphFaces,
  observers: readonly RequestObserver[],
  limitedRoutes: ReadonlyMap<string, RateLimitedRoute> = new Map(),
): HttpServer {
  const readiness = new Readiness(services);
  const streams = new OpenStreams(services.config.subscriptionKeepAliveMs);
  // An idle keep-alive connection stays open longer than clients keep theirs (undici: the server's hint less a
  // second; load balancers: 60 s), so the client always closes first. With Node's 5 s default, a client reusing a
  // connection that the server was closing at that moment got ECONNRESET for a request the service never saw.
  // Answers not yet complete. Node answers a request that was in flight at server.close() with keep-alive and leaves
  // the connection idle until the client closes it, so a drain waited for the balancer's idle connection up to its
  // deadline (the three-instance test saw 20-25 s). The drain tells each of these to close its connection instead.
  const inFlight = new Set<ServerResponse>();
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    if (readiness.draining) res.shouldKeepAlive = false;
    else {
      inFlight.add(res);
      res.once('close', () => inFlight.delete(res));
    }
    void handle(services, router, graph, readiness, streams, req, res, observers, limitedRoutes);
  });
  let closed: Promise<void> | undefined;
  const stopListening = () =>
    (closed ??= new Promise<void>((resolve) => {
      if (!server.listening) resolve();
      else server.close(() => resolve());
    }));
  return {
    server,
    readiness,
    listen: (port) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, () => {
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      }),
    drain: async (deadlineMs) => {
      readiness.draining = true;
      for (const res of inFlight) {
        if (!res.headersSent) res.shouldKeepAlive = false;
        // Its headers already promised keep-alive: the connection closes once it is idle after this answer.
        else res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
      }
      const done = stopListening();
      // Streams never finish by themselves: they end now, and their clients resume elsewhere.
      streams.endAll();
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
      await Promise.race([done, deadline]);
      clearTimeout(timer);
      server.closeAllConnections();
      await done;
    },
    close: async () => {
      readiness.draining = true;
      const done = stopListening();
      server.closeAllConnections();
      await done;
    },
  };
}

async function handle(
  services: Services,
  router: Router,
  graph: GraphFaces,
  readiness: Readiness,
  streams: OpenStreams,
  req: IncomingMessage,
  res: ServerResponse,
  observers: readonly RequestObserver[],
  limitedRoutes: ReadonlyMap<string, RateLimitedRoute>,
): Promise<void> {
  const started = performance.now();
  const url = new URL(req.url ?? '/', 'http://localhost');
  const gone = new AbortController();
  // Only a request left unanswered is aborted: each abort builds a DOMException with its stack, which the profile
  // showed on every request when it also fired for the close that follows every answer.
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const request: HttpRequest = {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    params: {},
    rawBody: Buffer.alloc(0),
    // With tracing on, the request's trace: the id an error body shows is the one to look up in the tracing backend.
    traceId: trace.getActiveSpan()?.spanContext().traceId ?? randomUUID(),
    signal: gone.signal,
    remoteAddress: req.socket.remoteAddress,
  };
  let response: HttpResponse;
  let failure: unknown;
  try {
    // The route is matched once, here: its body limit, then its run. The graph has no route to look for.
    const match = isGraphRequest(request) ? undefined : router.match(request);
    request.rawBody = await readBody(req, Router.bodyLimitOf(match, MAX_BODY_BYTES));
    response = await route(services, router, graph, readiness, request, match, limitedRoutes);
  } catch (error) {
    if (error instanceof ClientClosedRequest) {
      // Nobody is left to answer; logged as nginx does (499, client closed request), observed by nobody.
      if (services.config.logRequests) logRequest({ ...requestLine(request, req, started), status: CLIENT_CLOSED_REQUEST });
      return;
    }
    failure = error;
    // A body too large is refused before routing: it still answers in the format of the path's interface.
    response = rendered(router.errorFormatFor(request.path, epaymentProblem), error, request);
  }
  if (failure && !(failure instanceof AppError)) logError('request failed', failure, { traceId: request.traceId, path: request.path });
  if (response.stream) streams.send(res, response, request.traceId);
  else send(res, response, request.traceId);
  countRequest(services, router, request, response.status, started);
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
  graph: GraphFaces,
  readiness: Readiness,
  request: HttpRequest,
  match: RouteMatch | undefined,
  limitedRoutes: ReadonlyMap<string, RateLimitedRoute>,
): Promise<HttpResponse> {
  // Alive: the process answers. Ready: it should be sent traffic (database reachable, migrations done, not draining).
  if (request.path === '/healthz') return { status: 200, body: { status: 'ok' } };
  if (request.path === '/readyz') return readiness.probe();
  // Subscriptions over HTTP: graphql-sse on /graphql/stream, Apollo's multipart protocol on POST /graphql.
  const streamed = streamProtocolOf(request);
  if (streamed) {
    request.routePattern = streamed === 'sse' ? GRAPHQL_STREAM_PATH : '/graphql';
    return graph.streams.serve(streamed, request);
  }
  if (isGraphRequest(request)) {
    request.routePattern = '/graphql';
    // The graph's admission charges its callers, by address too (graph/admission.ts).
    return handleGraphQLRequest(services, graph.apollo, request);
  }
  // Every answer under an interface's prefix, errors included, is in that interface's format; outside every
  // prefix, the ePayment problem.
  const errorFormat = router.errorFormatFor(request.path, epaymentProblem);
  try {
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
    const admission = await admitRestRequest(services, request);
    if (!admission.allowed) return rendered(errorFormat, new RateLimitRefusal(admission.state), request);
    const limitedRoute = limitedRoutes.get(`${request.method} ${match.route.pattern}`);
    const admitAuthenticated = limitedRoute && (() => chargeAuthenticated(services, request, limitedRoute));
    const response = await match.route.run(request, admitAuthenticated).catch((error: unknown) => {
      if (!(error instanceof AppError)) logError('request failed', error, { traceId: request.traceId, path: request.path });
      return rendered(errorFormat, error, request);
    });
    return withRateLimitFields(response, admission.state);
  } catch (error) {
    if (!(error instanceof AppError)) logError('request failed', error, { traceId: request.traceId, path: request.path });
    return rendered(errorFormat, error, request);
  }
}

/** POST /graphql and GET /graphql from a program (a browser asking for HTML is shown the IDE page). */
function isGraphRequest(request: HttpRequest): boolean {
  return request.path === '/graphql' && !wantsGraphQLIde(request);
}

/** An error in the interface's format, with the headers it carries (a quota's `Retry-After` and RateLimit fields). */
function rendered(errorFormat: ErrorFormat, error: unknown, request: HttpRequest): HttpResponse {
  const appError = asAppError(error);
  const response = errorFormat.render(appError, request);
  return { ...response, headers: { ...response.headers, ...appError.headers } };
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

/**
 * The streamed answers open now. Each has its headers sent at once and its body written as it comes, a heartbeat
 * whenever it was quiet for a keep-alive interval (15 s by default, under HAProxy's 70 s idle timeout), and ends when
 * its writer is done: the client went away, or the server drains (`endAll`), when a keep-alive connection is closed
 * after it so the drain need not wait for the client.
 */
class OpenStreams {
  private readonly open = new Set<AbortController>();

  constructor(private readonly keepAliveMs: number) {}

  send(res: ServerResponse, response: HttpResponse, traceId: string): void {
    const stream = response.stream!;
    res.writeHead(response.status, { 'x-trace-id': traceId, 'cache-control': 'no-cache', ...response.headers });
    res.flushHeaders();
    const ending = new AbortController();
    this.open.add(ending);
    res.once('close', () => {
      if (!ending.signal.aborted) ending.abort(STREAM_GONE);
    });
    // A client that left while the stream was being set up (the subscription admitted, its replay read) is gone
    // already: its close came before anyone listened.
    if (!res.socket || res.socket.destroyed) ending.abort(STREAM_GONE);
    const writable = () => !res.destroyed && !res.writableEnded;
    let quiet = true;
    const heartbeat = setInterval(() => {
      if (quiet && writable()) res.write(stream.heartbeat);
      quiet = true;
    }, this.keepAliveMs);
    const out: StreamOut = {
      write: (chunk) => {
        quiet = false;
        if (writable()) res.write(chunk);
      },
      get unsentBytes() {
        return res.writableLength;
      },
      ending: ending.signal,
    };
    void stream
      .run(out)
      .catch((error: unknown) => logError('response stream failed', error, { traceId }))
      .finally(() => {
        clearInterval(heartbeat);
        this.open.delete(ending);
        // The connection closes after the last byte, not idle until the client's keep-alive ends (the response has
        // let go of its socket by the time it says it finished).
        const socket = res.socket;
        if (ending.signal.reason === STREAM_DRAINING) res.once('finish', () => socket?.end());
        if (writable()) res.end();
      });
  }

  endAll(): void {
    for (const ending of this.open) ending.abort(STREAM_DRAINING);
  }
}

/** The request in the metrics: by its interface and route pattern, and a graph operation by its name. */
function countRequest(services: Services, router: Router, request: HttpRequest, status: number, started: number): void {
  const metrics = services.metrics;
  if (!metrics) return;
  const graph = request.routePattern === '/graphql' || request.routePattern === GRAPHQL_STREAM_PATH;
  const restInterface = graph ? 'graphql' : (router.interfaceFor(request.path)?.name ?? (request.routePattern ? 'pages' : 'none'));
  // Unrouted paths share one series: a scanner's random paths must not each become one.
  const route = request.routePattern ?? (request.path === '/healthz' || request.path === '/readyz' ? request.path : 'unmatched');
  metrics.request({ interface: restInterface, route, method: request.method, status, seconds: (performance.now() - started) / 1000 });
  if (graph && request.method === 'POST') metrics.graphqlOperation(operationName(request), status);
}

/** The operation's name: known once the graph read the body, else read from it here. */
function operationName(request: HttpRequest): string {
  if (request.graphOperation !== undefined) return request.graphOperation;
  try {
    return operationNameOf(JSON.parse(request.rawBody.toString('utf8')));
  } catch {
    return 'unparsed';
  }
}
