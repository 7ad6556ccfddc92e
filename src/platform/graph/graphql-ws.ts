import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  GraphQLError,
  getOperationAST,
  specifiedRules,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Services } from '../context.js';
import { AppError } from '../errors/app-error.js';
import { SubscriberTooSlowError } from '../events/event-stream.js';
import { logError } from '../../log.js';
import { forbiddenFieldsError, refusedRootFields } from './principal-fields.js';
import { queryLimitRules } from './query-limits.js';
import { chargeOperation, rateLimitedError } from './rate-limited.js';
import { schemaDisclosure } from './schema.js';
import { GRAPHQL_WS_PATH, prepareOperation } from './socket-operation.js';
import { authenticateSocket, sessionOf, type SocketExtra } from './socket-session.js';
import { operationContext, subscribeWithFreshContextPerEvent, type SubscriptionOutlet } from './subscription-execution.js';

export { GRAPHQL_WS_PATH } from './socket-operation.js';

export interface SubscriptionServer {
  /**
   * Closes every subscriber's socket and stops accepting new ones: 1001 Going away by default; a graceful shutdown
   * says 1012 Service Restart, on which graphql-ws clients reconnect (through the balancer, to another instance).
   * A socket whose client has not answered the close by `deadlineMs` is cut: a client that stopped reading never
   * answers, and ws would otherwise wait 30 s for each.
   */
  close(closing?: { code: number; reason: string }, deadlineMs?: number): Promise<void>;
  /** Sockets open now (the open-subscriptions metric). */
  openSockets(): number;
}

/**
 * graphql-ws on the HTTP server's `/graphql`, over the same schema as POST /graphql. This file wires the socket;
 * authentication (socket-session), operation checks (socket-operation) and execution (subscription-execution)
 * each live in their own.
 */
export function attachSubscriptionServer(server: Server, services: Services, schema: GraphQLSchema): SubscriptionServer {
  const limits = services.config.socketLimits;
  // A frame past the cap is refused as its header arrives, before it is buffered, authenticated or not.
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxFrameBytes });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== GRAPHQL_WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      wss.emit('connection', ws, req);
      quietAboutOversizedFrames(ws);
    });
  };
  server.on('upgrade', onUpgrade);
  const disclosure = schemaDisclosure(services.config.env === 'production');
  const queryLimits = queryLimitRules(services.config.graphqlLimits, { introspectionAllowed: !disclosure.refusesIntrospection });
  const rules = [...specifiedRules, ...queryLimits, ...disclosure.rules];
  const clientError = (error: GraphQLError) => disclosure.formatError(scrub(error));
  const clientResult = (result: ExecutionResult) => (result.errors ? { ...result, errors: result.errors.map(clientError) } : result);
  /** Each operation's socket and subscription id, by its context: where its results are written. */
  const outlets = new WeakMap<object, SubscriptionOutlet>();

  const disposable = useServer<Record<string, unknown>, SocketExtra>(
    {
      schema,
      isProd: services.config.env === 'production',
      connectionInitWaitTimeout: limits.connectionInitWaitMs,
      onConnect: (ctx) => authenticateSocket(services, ctx),
      onSubscribe: async (ctx, _id, payload) => {
        // graphql-ws has registered this id already: it counts among the socket's subscriptions.
        if (Object.keys(ctx.subscriptions).length > limits.maxSubscriptions) return [tooManySubscriptions(limits.maxSubscriptions)];
        const prepared = prepareOperation(
          schema,
          rules,
          services.config.graphqlLimits,
          payload.query,
          payload.operationName ?? undefined,
          payload.variables ?? undefined,
        );
        if (!('document' in prepared)) return prepared;
        const operation = getOperationAST(prepared.document, prepared.operationName ?? undefined);
        const refused = operation ? refusedRootFields(schema, sessionOf(ctx).principal, operation) : [];
        if (refused.length > 0) return [forbiddenFieldsError(refused)];
        const charged = await chargeOperation(
          services,
          sessionOf(ctx).principal.clientId,
          prepared.document,
          prepared.operationName ?? undefined,
        );
        return charged.allowed ? prepared : [rateLimitedError(charged.state, false)];
      },
      context: (ctx, id) => {
        const context = operationContext(services, sessionOf(ctx));
        outlets.set(context, { socket: ctx.extra.socket, id });
        return context;
      },
      // Results are written to the socket by the subscription itself, serialized once per operation and event.
      subscribe: (args) => subscribeWithFreshContextPerEvent(services, args, outlets.get(args.contextValue as object), clientResult),
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? clientResult(result) : undefined),
      onError: (_ctx, _id, _payload, errors) => errors.map(clientError),
    },
    wss,
    services.config.subscriptionKeepAliveMs,
  );

  return {
    openSockets: () => wss.clients.size,
    close: async (closing, deadlineMs = CLOSE_DEADLINE_MS) => {
      server.off('upgrade', onUpgrade);
      if (closing) for (const socket of wss.clients) socket.close(closing.code, closing.reason);
      // dispose() resolves once every socket closed, which a client that stopped reading never lets happen.
      const cut = setTimeout(() => {
        for (const socket of wss.clients) socket.terminate();
      }, deadlineMs);
      try {
        await disposable.dispose();
      } finally {
        clearTimeout(cut);
      }
    },
  };
}

/** How long close() waits, unless told otherwise, for clients to answer the close before it cuts their sockets. */
const CLOSE_DEADLINE_MS = 5_000;

/**
 * ws closes a socket that sends a frame past `maxPayload` itself (1009) and then emits the error, which graphql-ws
 * logs as an internal failure. A client sending too much is not one: that error is dropped, any other still
 * reaches graphql-ws's handler.
 */
function quietAboutOversizedFrames(ws: WebSocket): void {
  const handlers = ws.listeners('error') as ((error: Error) => void)[];
  ws.removeAllListeners('error');
  ws.on('error', (error: Error & { code?: string }) => {
    if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return;
    for (const handler of handlers) handler.call(ws, error);
  });
}

function tooManySubscriptions(max: number): GraphQLError {
  return new GraphQLError(`A socket holds at most ${max} subscriptions at once; complete one, or open another socket`, {
    extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
  });
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
