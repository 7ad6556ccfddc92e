import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Services } from '../context.js';
import { logInfo } from '../../log.js';
import { clientAddress } from '../rate-limit/client-address.js';
import { GRAPHQL_PATH, graphAdmission } from './admission.js';
import { authenticateSocket, sessionOf, type SocketExtra } from './socket-session.js';
import { operationContext } from './subscription-context.js';
import { subscribeWithFreshContextPerEvent } from './subscription-execution.js';
import { SharedExecutions } from './subscription-sharing.js';
import { SocketWriter, socketOutlet, type SubscriptionOutlet } from './subscription-writer.js';
import { documentIdOf } from './trusted-documents.js';

export const GRAPHQL_WS_PATH = GRAPHQL_PATH;

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
  /** Since start: executions of an event for an operation (shared by its subscribers), and `next` messages sent. */
  fanOut(): { executions: number; notifications: number };
}

/**
 * graphql-ws on the HTTP server's `/graphql`, over the same schema as POST /graphql. This file wires the socket;
 * authentication (socket-session), the admission of each operation (admission.ts, as for POST /graphql) and
 * execution (subscription-execution) each live in their own.
 */
export function attachSubscriptionServer(
  server: Server,
  services: Services,
  schema: GraphQLSchema,
  sharing: SharedExecutions = new SharedExecutions(services),
): SubscriptionServer {
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
      protocolErrorsAsInformation(ws);
    });
  };
  server.on('upgrade', onUpgrade);
  const admission = graphAdmission(services, schema);
  const clientError = (error: GraphQLError) => admission.clientError(error);
  const clientResult = (result: ExecutionResult) => (result.errors ? { ...result, errors: result.errors.map(clientError) } : result);
  /** Each operation's socket and subscription id, by its context: where its results are written. */
  const outlets = new WeakMap<object, SubscriptionOutlet>();
  const sent = { notifications: 0 };
  const writers = new WeakMap<WebSocket, SocketWriter>();
  const writerOf = ({ socket, request }: { socket: WebSocket; request: IncomingMessage }): SocketWriter => {
    let writer = writers.get(socket);
    if (!writer) writers.set(socket, (writer = new SocketWriter(socket, request.socket, limits.maxUnsentBytes, sent)));
    return writer;
  };

  const disposable = useServer<Record<string, unknown>, SocketExtra>(
    {
      schema,
      isProd: services.config.env === 'production',
      connectionInitWaitTimeout: limits.connectionInitWaitMs,
      onConnect: (ctx) => authenticateSocket(services, ctx),
      onSubscribe: async (ctx, _id, payload) => {
        // graphql-ws has registered this id already: it counts among the socket's subscriptions.
        if (Object.keys(ctx.subscriptions).length > limits.maxSubscriptions) return [tooManySubscriptions(limits.maxSubscriptions)];
        const { request } = ctx.extra;
        const verdict = await admission.admit({
          transport: 'socket',
          caller: {
            principal: sessionOf(ctx).principal,
            scope: sessionOf(ctx).scope,
            address: clientAddress(
              request.socket.remoteAddress,
              request.headers['x-forwarded-for'],
              services.config.rateLimits.trustedProxies,
            ),
          },
          // A registered document is named beside an empty query (graphql-ws requires the field): trusted-documents.ts.
          source: payload.query,
          operationName: payload.operationName,
          variables: payload.variables,
          documentId: documentIdOf(payload as Parameters<typeof documentIdOf>[0]),
        });
        if (!verdict.admitted) return verdict.errors;
        const operationName = payload.operationName ?? undefined;
        return { schema, document: verdict.document, operationName, variableValues: payload.variables ?? undefined };
      },
      context: (ctx, id) => {
        const context = operationContext(services, sessionOf(ctx));
        outlets.set(context, socketOutlet(writerOf(ctx.extra), id, clientResult));
        return context;
      },
      // Results are written to the socket by the subscription itself, serialized once per operation and event.
      subscribe: (args) => subscribeWithFreshContextPerEvent(sharing, args, outlets.get(args.contextValue as object)),
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? clientResult(result) : undefined),
      onError: (_ctx, _id, _payload, errors) => errors.map(clientError),
    },
    wss,
    services.config.subscriptionKeepAliveMs,
  );

  return {
    openSockets: () => wss.clients.size,
    fanOut: () => ({ executions: sharing.executions, notifications: sent.notifications }),
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
 * A client that breaks the WebSocket protocol (a frame past `maxPayload`, RSV1 without compression, invalid UTF-8, a
 * bad opcode or close code: ws's `WS_ERR_*` codes) is closed by ws itself with the code the protocol gives (1002,
 * 1007, 1009), which then emits the error; graphql-ws would print it as an internal failure of ours, with a stack,
 * outside the log. It is the client's mistake: one line of information in the log. Any other error still reaches
 * graphql-ws's handler. A client that goes away without a close frame (1006) is information too.
 */
function protocolErrorsAsInformation(ws: WebSocket): void {
  const handlers = ws.listeners('error') as ((error: Error) => void)[];
  ws.removeAllListeners('error');
  let brokeProtocol = false;
  ws.on('error', (error: Error & { code?: string }) => {
    if (!error.code?.startsWith('WS_ERR_')) {
      for (const handler of handlers) handler.call(ws, error);
      return;
    }
    brokeProtocol = true;
    logInfo('graphql-ws client broke the WebSocket protocol', { code: error.code, error: error.message });
  });
  // ws stops reading a client that broke the protocol, so its close is abnormal too: said once, above.
  ws.once('close', (code: number) => {
    if (code === ABNORMAL_CLOSURE && !brokeProtocol) logInfo('graphql-ws client went away without closing', { code });
  });
}

/** The close code ws reports when the connection ended without a close frame. */
const ABNORMAL_CLOSURE = 1006;

function tooManySubscriptions(max: number): GraphQLError {
  return new GraphQLError(`A socket holds at most ${max} subscriptions at once; complete one, or open another socket`, {
    extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
  });
}
