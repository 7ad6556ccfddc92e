import { createSourceEventStream, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { closingIterator } from '../events/closing-iterator.js';
import { isEventKeyed, isTappable, type TappableEventStream } from '../events/event-stream.js';
import { ExecutedAhead, type StartedExecution } from './executed-ahead.js';
import { sharedOperation, type SharedExecutions, type SharedResult } from './subscription-sharing.js';
import type { SubscriptionOutlet } from './subscription-writer.js';

/** Events a subscriber's executions may run ahead of its writes (executed-ahead.ts). */
const EXECUTED_AHEAD = 16;

/**
 * Like graphql-js `subscribe`, except that each event runs with a fresh unit of work and fresh DataLoaders
 * (subscription-context.ts), once for every subscriber holding the same operation (subscription-sharing.ts).
 *
 * With an `outlet` (a graphql-ws socket, or an HTTP stream), each result is written to it from here, around the
 * payload serialized once per operation and event (subscription-writer.ts): fanning one event out to a thousand sockets was mostly a thousand serializations
 * and promise hops through graphql-ws (bench/README.md). The iterator handed back then yields nothing and ends when
 * the events end or the outlet closes; a source failure (a subscriber too slow) rejects it, and the transport sends
 * the error (graphql-ws as before). Each event's execution starts as the event arrives, while earlier results are
 * still being written, and results are written in the events' order: a live stream's as they come
 * (`writtenAsTheyCome`), a resumed one's through executed-ahead.ts.
 */
export async function subscribeWithFreshContextPerEvent(
  sharing: SharedExecutions,
  args: ExecutionArgs,
  outlet?: SubscriptionOutlet,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return stream;
  const iterator = stream[Symbol.asyncIterator]();
  const operation = sharedOperation(args);
  const eventIdOf = isEventKeyed(iterator) ? (event: unknown) => iterator.eventIdOf(event) : () => undefined;
  const run = (event: unknown) => sharing.run(operation, event, eventIdOf(event));
  if (outlet && isTappable(iterator)) return writtenAsTheyCome(iterator, run, outlet);
  const ahead = outlet ? new ExecutedAhead(iterator, run, EXECUTED_AHEAD) : undefined;
  const next = async (): Promise<IteratorResult<ExecutionResult>> => {
    if (!outlet || !ahead) {
      const event = await iterator.next();
      return event.done ? { done: true, value: undefined } : { done: false, value: (await run(event.value).promise).result };
    }
    for (;;) {
      // Results already there are written in this turn, without a promise each: a socket's writes of one turn
      // leave together (subscription-writer.ts).
      const shared = ahead.nextSettled() ?? (await ahead.next());
      if (shared === undefined || !outlet.open) return { done: true, value: undefined };
      outlet.write(shared);
    }
  };
  // Closed when the client completes or the socket closes: must end a `next()` that is waiting for an event.
  return closingIterator(next, async () => {
    ahead?.stop();
    await iterator.return?.();
  });
}

/**
 * A live stream's results written as its events come, with no promise per subscriber and event: the stream hands
 * each event over as the bus publishes it (`tap`), its shared execution starts (or is found started), and the
 * subscriber's results are written in the events' order as soon as the oldest is settled; a settling execution calls
 * its waiting subscribers in one turn. Each event took a chain of promises per subscriber through the stream, the
 * executions run ahead and the write loop, which were most of the fan-out's JavaScript (bench/README.md, issue 23).
 * The events a subscriber holds (executing, or behind one still executing) count against the stream's bound, past
 * which it fails as too slow. The iterator handed to graphql-ws yields nothing: it ends when `return()` is called or
 * the socket is no longer open, and rejects with a failure (too slow, an execution that threw), which graphql-ws sends.
 */
function writtenAsTheyCome(
  source: TappableEventStream<unknown>,
  run: (event: unknown) => StartedExecution<SharedResult>,
  outlet: SubscriptionOutlet,
): AsyncIterableIterator<ExecutionResult> {
  const held: StartedExecution<SharedResult>[] = [];
  let ended = false;
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
  /** The socket closed (or was closed as too far behind): the subscription leaves the bus now, not after the close handshake. */
  const leave = () => {
    if (!stop()) return;
    void source.return?.();
    end.resolve({ done: true, value: undefined });
  };
  const drain = (): void => {
    while (!ended && held.length > 0) {
      if (!outlet.open) return leave();
      const head = held[0]!;
      if (head.failure) return fail(head.failure.error);
      if (head.settled === undefined) {
        (head.waiting ??= []).push(drain);
        return;
      }
      held.shift();
      outlet.write(head.settled);
    }
  };
  source.tap({
    event: (event) => {
      if (ended) return;
      if (!outlet.open) return leave();
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
