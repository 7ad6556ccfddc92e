import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  GraphQLError,
  createSourceEventStream,
  execute,
  getOperationAST,
  getVariableValues,
  parse,
  print,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import type { Context as WsContext } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { assertActsFor, authenticate, credentialsFromRequest } from '../auth/authenticate.js';
import type { MerchantPrincipal, Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import { SubscriberTooSlowError } from '../events/payment-event-stream.js';
import { readHeaders } from '../rest/headers.js';
import type { HttpRequest } from '../rest/http-types.js';
import { logError } from '../../log.js';
import type { GraphQLContext } from './graphql-context.js';
import { LoaderRegistry } from './loader-registry.js';
import { queryLimitRules } from './query-limits.js';
import { schemaDisclosure } from './schema.js';

export const GRAPHQL_WS_PATH = '/graphql';

/** Who a socket authenticated as in `connection_init`; every operation on it acts for this sales unit. */
interface Session {
  principal: MerchantPrincipal;
  msn: string;
}
type SocketExtra = { session: Session };
type Ctx = WsContext<Record<string, unknown>, Extra & Partial<SocketExtra>>;

export interface SubscriptionServer {
  /** Closes every subscriber's socket (1001 Going away) and stops accepting new ones. */
  close(): Promise<void>;
}

/** graphql-ws on the HTTP server's `/graphql`, over the same schema as POST /graphql. */
export function attachSubscriptionServer(server: Server, services: Services, schema: GraphQLSchema): SubscriptionServer {
  const wss = new WebSocketServer({ noServer: true });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== GRAPHQL_WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  };
  server.on('upgrade', onUpgrade);
  const disclosure = schemaDisclosure(services.config.env === 'production');
  const rules = [...specifiedRules, ...queryLimitRules(services.config.graphqlLimits), ...disclosure.rules];
  const clientError = (error: GraphQLError) => disclosure.formatError(scrub(error));

  const disposable = useServer<Record<string, unknown>, SocketExtra>(
    {
      schema,
      isProd: services.config.env === 'production',
      onConnect: (ctx) => authenticateSocket(services, ctx),
      onSubscribe: (_ctx, _id, payload) =>
        prepareOperation(schema, rules, payload.query, payload.operationName ?? undefined, payload.variables ?? undefined),
      context: (ctx) => operationContext(services, ctx.extra.session!),
      subscribe: (args) => subscribeWithFreshContextPerEvent(services, args),
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: result.errors.map(clientError) } : undefined),
      onError: (_ctx, _id, _payload, errors) => errors.map(clientError),
    },
    wss,
    services.config.subscriptionKeepAliveMs,
  );

  return {
    close: async () => {
      server.off('upgrade', onUpgrade);
      await disposable.dispose();
    },
  };
}

/**
 * The `connection_init` payload carries the same credentials as an HTTP request, under the HTTP header names in
 * any case. Anything wrong with them closes the socket with 4403 before the ack; failures of our own (the
 * database is down) close it with 4500 instead, so a client can tell the two apart.
 */
async function authenticateSocket(services: Services, ctx: Ctx): Promise<boolean> {
  const request = credentialRequest(ctx.extra.request, ctx.connectionParams ?? {});
  try {
    const { msn } = readHeaders(request, { msn: 'required', idempotencyKey: 'absent', systemHeaderMaxLength: 30 });
    const principal = authenticate(services, credentialsFromRequest(request));
    await assertActsFor(services, forkEm(services.orm), principal, msn!);
    ctx.extra.session = { principal, msn: msn! };
    closeWhenTokenExpires(services, ctx, principal);
    return true;
  } catch (error) {
    if (error instanceof AppError && error.status < 500) return false;
    throw error;
  }
}

/**
 * A socket is as good as the token it was opened with: an HTTP request with that token would be refused after
 * `exp`, so the subscription ends then too, with the same 4403 as a bad token at `connection_init`. The client
 * reconnects with a fresh token.
 */
function closeWhenTokenExpires(services: Services, ctx: Ctx, principal: MerchantPrincipal): void {
  if (principal.tokenExpiresAt === undefined) return;
  const socket = ctx.extra.socket;
  const timer = setTimeout(
    () => socket.close(4403, 'Access token expired'),
    Math.max(0, principal.tokenExpiresAt * 1000 - services.clock.now().getTime()),
  );
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** The upgrade request with the payload's values as its headers: the credential rules then read it as for HTTP. */
function credentialRequest(upgrade: IncomingMessage, params: Record<string, unknown>): HttpRequest {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  return {
    method: upgrade.method ?? 'GET',
    path: GRAPHQL_WS_PATH,
    query: new URLSearchParams(),
    headers,
    params: {},
    rawBody: Buffer.alloc(0),
    traceId: randomUUID(),
  };
}

/**
 * Only subscriptions travel over the socket: queries and mutations go to POST /graphql, where idempotency,
 * request logs and CSRF prevention live. The graph's limits apply here as on HTTP.
 */
function prepareOperation(
  schema: GraphQLSchema,
  rules: typeof specifiedRules,
  query: string,
  operationName: string | undefined,
  variableValues: Record<string, unknown> | undefined,
): ExecutionArgs | readonly GraphQLError[] {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    if (error instanceof GraphQLError) return [withCode(error, 'GRAPHQL_PARSE_FAILED')];
    throw error;
  }
  const errors = validate(schema, document, rules);
  if (errors.length > 0) return errors.map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED'));
  const operation = getOperationAST(document, operationName);
  if (!operation) return [new GraphQLError('Name the operation to run', { extensions: { code: 'BAD_USER_INPUT' } })];
  if (operation.operation !== 'subscription') {
    return [
      new GraphQLError(`Send ${operation.operation} operations to POST ${GRAPHQL_WS_PATH}; the socket serves subscriptions`, {
        extensions: { code: 'BAD_REQUEST' },
      }),
    ];
  }
  // Coerced here, as Apollo does before executing, so a bad variable is refused like a bad document, with the
  // code HTTP gives it, instead of surfacing later as a bare execution error.
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {});
  if (coerced.errors) return coerced.errors.map((error) => withCode(error, 'BAD_USER_INPUT'));
  return { schema, document, operationName, variableValues };
}

/** The codes Apollo Server gives the same failures on POST /graphql, so a client handles both faces alike. */
function withCode(error: GraphQLError, code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED' | 'BAD_USER_INPUT'): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code } });
}

function operationContext(services: Services, session: Session): GraphQLContext {
  const em = forkEm(services.orm);
  return {
    services,
    request: {
      principal: session.principal,
      msn: session.msn,
      em,
      clock: services.clock,
      config: services.config,
      traceId: randomUUID(),
      loaders: new LoaderRegistry(em),
    },
  };
}

/**
 * One event's result per operation, shared by every subscriber that holds the same operation (document,
 * variables, caller and sales unit): a dashboard opened a thousand times costs one execution per event, not a
 * thousand. Keyed weakly by the event object the bus hands to every subscriber, so it lives as long as the event.
 */
const sharedResults = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/**
 * Like graphql-js `subscribe`, except that each event runs with a fresh unit of work and fresh DataLoaders: a
 * subscription lives for hours, and one identity map or loader cache for its whole life would serve stale rows.
 */
async function subscribeWithFreshContextPerEvent(
  services: Services,
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return stream;
  const iterator = stream[Symbol.asyncIterator]();
  const base = args.contextValue as GraphQLContext;
  const session: Session = { principal: base.request.principal, msn: base.request.msn };
  const operationKey = [
    session.principal.clientId,
    session.msn,
    print(args.document),
    args.operationName ?? '',
    JSON.stringify(args.variableValues ?? {}),
  ].join('\n');
  const run = (event: unknown): Promise<ExecutionResult> => {
    const execution = () =>
      execute({ ...args, rootValue: event, contextValue: operationContext(services, session) }) as Promise<ExecutionResult>;
    if (typeof event !== 'object' || event === null) return execution();
    let byOperation = sharedResults.get(event);
    if (!byOperation) sharedResults.set(event, (byOperation = new Map()));
    let result = byOperation.get(operationKey);
    if (!result) byOperation.set(operationKey, (result = execution()));
    return result;
  };
  const results: AsyncIterableIterator<ExecutionResult> = {
    next: async () => {
      const result = await iterator.next();
      return result.done ? { done: true, value: undefined } : { done: false, value: await run(result.value) };
    },
    // Called when the client completes or the socket closes: must end a `next()` that is waiting for an event.
    return: async () => {
      await iterator.return?.();
      return { done: true, value: undefined };
    },
    throw: async (error: unknown) => {
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return results;
    },
  };
  return results;
}

/** As on HTTP: expected failures keep their code, anything else reaches the log and the client sees no detail. */
function scrub(error: GraphQLError): GraphQLFormattedError {
  const cause = error.originalError;
  if (!cause || cause instanceof GraphQLError) return error.toJSON();
  if (cause instanceof SubscriberTooSlowError)
    return { message: cause.message, path: error.path, extensions: { code: 'SUBSCRIBER_TOO_SLOW' } };
  if (cause instanceof AppError && cause.status < 500) {
    return { message: cause.message, path: error.path, extensions: { code: cause.code, details: cause.details } };
  }
  logError('graphql subscription failed', cause);
  return { message: 'Internal server error', path: error.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}
