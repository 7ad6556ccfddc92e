import { randomUUID } from 'node:crypto';
import { createSourceEventStream, execute, print, type ExecutionArgs, type ExecutionResult, type FormattedExecutionResult } from 'graphql';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { contextFor } from '../auth/request-context.js';
import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { closingIterator } from '../events/closing-iterator.js';
import { isTappable, type TappableEventStream } from '../events/event-stream.js';
import type { GraphQLContext } from './graphql-context.js';
import { ExecutedAhead, type StartedExecution } from './executed-ahead.js';
import type { Session } from './socket-session.js';

/** A context for one operation or one event of the socket's session: a fresh unit of work and fresh loaders. */
export function operationContext(services: Services, session: Session): GraphQLContext {
  return { services, request: contextFor(services, forkEm(services.orm), session.principal, session.scope, randomUUID()) };
}

/** Where one subscription's results go: its socket and the id the client gave the subscription. */
export interface SubscriptionOutlet {
  socket: WebSocket;
  id: string;
}

/** An event's result for one operation, and its `next` payload as JSON, made once for every subscriber holding it. */
interface SharedResult {
  result: ExecutionResult;
  /** The payload as UTF-8 JSON, made by the first subscriber that writes it to a socket. */
  payload?: Buffer;
}

/**
 * One event's result per operation, shared by every subscriber that holds the same operation (document,
 * variables, caller and sales unit): a dashboard opened a thousand times costs one execution, and one
 * serialization, per event, not a thousand. Keyed weakly by the event object the bus hands to every subscriber, so
 * it lives as long as the event.
 */
const sharedResults = new WeakMap<object, Map<string, StartedExecution<SharedResult>>>();

/**
 * One context per event and caller (principal and sales unit), shared by that caller's different operations on the
 * event: like the fields of one request, they share a unit of work and loaders, so the event's payment is read once
 * for all the dashboards' documents rather than once each. Still fresh per event; never shared between callers.
 */
const sharedContexts = new WeakMap<object, Map<string, GraphQLContext>>();

/** Events a subscriber's executions may run ahead of its writes (executed-ahead.ts). */
const EXECUTED_AHEAD = 16;

/**
 * Like graphql-js `subscribe`, except that each event runs with a fresh unit of work and fresh DataLoaders: a
 * subscription lives for hours, and one identity map or loader cache for its whole life would serve stale rows.
 *
 * With an `outlet`, each result is written to the subscription's socket from here, as the `next` message graphql-ws
 * would send, around the payload serialized once per operation and event (`format` applies the client error
 * format, as graphql-ws's `onNext` does): fanning one event out to a thousand sockets was mostly a thousand
 * serializations and promise hops through graphql-ws (bench/README.md). The iterator handed to graphql-ws then
 * yields nothing and ends when the events end; a source failure (a subscriber too slow) still reaches graphql-ws,
 * which sends the error as before. Each event's execution starts as the event arrives, while earlier results are
 * still being written, and results are written in the events' order: a live stream's as they come
 * (`writtenAsTheyCome`), a resumed one's through executed-ahead.ts. A write waits for the socket to take it, as
 * graphql-ws's own loop does, once the socket has a backlog (sendText), so a slow socket backs up into the
 * subscriber's bounded buffer.
 */
export async function subscribeWithFreshContextPerEvent(
  services: Services,
  args: ExecutionArgs,
  outlet?: SubscriptionOutlet,
  format: (result: ExecutionResult) => ExecutionResult | FormattedExecutionResult = (result) => result,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return stream;
  const iterator = stream[Symbol.asyncIterator]();
  const base = args.contextValue as GraphQLContext;
  const session: Session = { principal: base.request.principal, scope: base.request.scope };
  const callerKey = [session.principal.kind, session.principal.clientId, session.scope.msn, session.scope.actingFor ?? ''].join('\n');
  const operationKey = [callerKey, print(args.document), args.operationName ?? '', JSON.stringify(args.variableValues ?? {})].join('\n');
  const contextOf = (event: unknown): GraphQLContext => {
    if (typeof event !== 'object' || event === null) return operationContext(services, session);
    let byCaller = sharedContexts.get(event);
    if (!byCaller) sharedContexts.set(event, (byCaller = new Map()));
    let context = byCaller.get(callerKey);
    if (!context) byCaller.set(callerKey, (context = operationContext(services, session)));
    return context;
  };
  const execution = async (event: unknown): Promise<SharedResult> => {
    const result = (await execute({ ...args, rootValue: event, contextValue: contextOf(event) })) as ExecutionResult;
    return { result };
  };
  const started = (event: unknown): StartedExecution<SharedResult> => {
    const shared: StartedExecution<SharedResult> = { promise: execution(event) };
    const settle = () => {
      for (const waiting of shared.waiting?.splice(0) ?? []) waiting();
    };
    shared.promise.then(
      (result) => {
        shared.settled = result;
        settle();
      },
      // Whoever reads it sees the failure; this also keeps it from counting as unhandled until then.
      (error: unknown) => {
        shared.failure = { error };
        settle();
      },
    );
    return shared;
  };
  const run = (event: unknown): StartedExecution<SharedResult> => {
    if (typeof event !== 'object' || event === null) return started(event);
    let byOperation = sharedResults.get(event);
    if (!byOperation) sharedResults.set(event, (byOperation = new Map()));
    let shared = byOperation.get(operationKey);
    if (!shared) byOperation.set(operationKey, (shared = started(event)));
    return shared;
  };
  if (outlet && isTappable(iterator)) return writtenAsTheyCome(iterator, run, outlet, format);
  const ahead = outlet ? new ExecutedAhead(iterator, run, EXECUTED_AHEAD) : undefined;
  const next = async (): Promise<IteratorResult<ExecutionResult>> => {
    if (!outlet || !ahead) {
      const event = await iterator.next();
      return event.done ? { done: true, value: undefined } : { done: false, value: (await run(event.value).promise).result };
    }
    const write = nextMessageWriter(outlet, format);
    for (;;) {
      // Results already there are written in this turn, without a promise each: a socket's writes of one turn
      // leave together (holdWritesUntilTurnEnds).
      const shared = ahead.nextSettled() ?? (await ahead.next());
      if (shared === undefined) return { done: true, value: undefined };
      const backlog = write(shared);
      if (backlog) await backlog;
    }
  };
  // Closed when the client completes or the socket closes: must end a `next()` that is waiting for an event.
  return closingIterator(next, async () => {
    ahead?.stop();
    await iterator.return?.();
  });
}

/** Writes a shared result to the outlet as the `next` message graphql-ws would send; a promise when the socket has a backlog. */
function nextMessageWriter(
  outlet: SubscriptionOutlet,
  format: (result: ExecutionResult) => ExecutionResult | FormattedExecutionResult,
): (shared: SharedResult) => Promise<void> | undefined {
  // Byte for byte graphql-ws's message: only the id is this subscriber's own.
  const messageStart = Buffer.from(`{"id":${JSON.stringify(outlet.id)},"type":"next","payload":`);
  return (shared) => {
    shared.payload ??= Buffer.from(JSON.stringify(format(shared.result)));
    return sendText(outlet.socket, [messageStart, shared.payload, MESSAGE_END], messageStart.length + shared.payload.length + 1);
  };
}

/**
 * A live stream's results written as its events come, with no promise per subscriber and event: the stream hands
 * each event over as the bus publishes it (`tap`), its shared execution starts (or is found started), and the
 * subscriber's results are written in the events' order as soon as the oldest is settled; a settling execution calls
 * its waiting subscribers in one turn. Each event took a chain of promises per subscriber through the stream, the
 * executions run ahead and the write loop, which were most of the fan-out's JavaScript (bench/README.md, issue 23).
 * The events a subscriber holds (executing, or behind a socket's backlog) count against the stream's bound, past which
 * it fails as too slow, as before. The iterator handed to graphql-ws yields nothing: it ends when `return()` is called
 * and rejects with a failure (too slow, an execution that threw, a write that failed), which graphql-ws sends.
 */
function writtenAsTheyCome(
  source: TappableEventStream<unknown>,
  run: (event: unknown) => StartedExecution<SharedResult>,
  outlet: SubscriptionOutlet,
  format: (result: ExecutionResult) => ExecutionResult | FormattedExecutionResult,
): AsyncIterableIterator<ExecutionResult> {
  const write = nextMessageWriter(outlet, format);
  const held: StartedExecution<SharedResult>[] = [];
  let ended = false;
  let backlogged = false;
  let end!: { resolve: (result: IteratorResult<ExecutionResult>) => void; reject: (error: unknown) => void };
  const ending = new Promise<IteratorResult<ExecutionResult>>((resolve, reject) => (end = { resolve, reject }));
  // A failure before graphql-ws first asks for `next()` is not an unhandled rejection: it sees it when it asks.
  ending.catch(() => undefined);
  /** Ends the subscription once: false if it had ended already. */
  const stop = (): boolean => {
    if (ended) return false;
    ended = true;
    held.length = 0;
    return true;
  };
  const fail = (error: unknown) => {
    if (!stop()) return;
    void source.return?.();
    end.reject(error);
  };
  const drain = (): void => {
    while (!ended && !backlogged && held.length > 0) {
      const head = held[0]!;
      if (head.failure) return fail(head.failure.error);
      if (head.settled === undefined) {
        (head.waiting ??= []).push(drain);
        return;
      }
      held.shift();
      const backlog = write(head.settled);
      if (backlog) {
        backlogged = true;
        backlog.then(() => {
          backlogged = false;
          drain();
        }, fail);
      }
    }
  };
  source.tap({
    event: (event) => {
      if (ended) return;
      held.push(run(event));
      if (held.length === 1) drain();
    },
    failed: fail,
    held: () => held.length,
  });
  // Closed when the client completes or the socket closes: ends the `next()` graphql-ws is waiting on.
  return closingIterator(
    () => ending,
    async () => {
      if (!stop()) return;
      await source.return?.();
      end.resolve({ done: true, value: undefined });
    },
  );
}

const MESSAGE_END = Buffer.from('}');

/** Past this much unsent on a socket, a write waits until the socket took it: a slow client backs up into its buffer. */
const SOCKET_BACKLOG_BYTES = 64 * 1024;

/**
 * As graphql-ws sends: nothing once the socket is no longer open. A socket that keeps up is written to without
 * waiting for the write's callback (one promise and one callback fewer per subscriber and event); one that has a
 * backlog makes the write wait until it has taken it, as graphql-ws's own loop always waits.
 *
 * The message leaves as the frame ws would write (`textFrame`), in one write to the TCP socket: ws's `send` made a
 * header buffer, two writes and a cork of its own per frame, and the message had to be joined first. ws still sends
 * where it could be between frames of its own (a socket with an extension: compression queues frames), where the
 * TCP socket is not at hand, and a message of 64 KiB or more.
 */
function sendText(socket: WebSocket, parts: readonly Buffer[], length: number): Promise<void> | undefined {
  if (socket.readyState !== socket.OPEN) return undefined;
  const tcp = tcpOf(socket);
  holdWritesUntilTurnEnds(tcp);
  const backlogged = socket.bufferedAmount >= SOCKET_BACKLOG_BYTES;
  if (!tcp || socket.extensions !== '' || length >= MAX_SHORT_FRAME) {
    const text = Buffer.concat(parts, length);
    if (!backlogged) return void socket.send(text, { binary: false });
    return new Promise((resolve, reject) => socket.send(text, { binary: false }, (error) => (error ? reject(error) : resolve())));
  }
  const frame = textFrame(parts, length);
  if (!backlogged) return void tcp.write(frame);
  return new Promise((resolve, reject) => tcp.write(frame, (error) => (error ? reject(error) : resolve())));
}

/** Frames from this length on carry a 64-bit length; rare for a notification, they are left to ws. */
const MAX_SHORT_FRAME = 65_536;

/**
 * A server's unfragmented, unmasked text frame of `length` bytes (below MAX_SHORT_FRAME) made of `parts` (RFC 6455,
 * section 5.2): FIN and opcode 1, then the length in 7 bits, or 126 and the length in 16 bits.
 */
function textFrame(parts: readonly Buffer[], length: number): Buffer {
  const header = length < 126 ? 2 : 4;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81;
  if (header === 2) frame[1] = length;
  else {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  }
  let offset = header;
  for (const part of parts) offset += part.copy(frame, offset);
  return frame;
}

function tcpOf(socket: WebSocket): Socket | undefined {
  return (socket as unknown as { _socket?: Socket })._socket;
}

/** TCP sockets corked during this turn of the event loop, uncorked together once it ends. */
const corked = new Set<Socket>();

/**
 * Several events for one socket in one turn (a read that found a batch) leave in one system call instead of one
 * each: the socket's writes are held (cork) until the turn ends. The write to the kernel was the largest cost of
 * the fan-out profile. Frames that ws writes (it corks each itself) are held the same way.
 */
function holdWritesUntilTurnEnds(tcp: Socket | undefined): void {
  if (!tcp || corked.has(tcp)) return;
  if (corked.size === 0) setImmediate(releaseHeldWrites);
  tcp.cork();
  corked.add(tcp);
}

function releaseHeldWrites(): void {
  for (const tcp of corked) tcp.uncork();
  corked.clear();
}
