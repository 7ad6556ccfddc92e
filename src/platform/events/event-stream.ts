import { closingIterator } from './closing-iterator.js';
import type { DomainEventBus, EventFilter } from './domain-event-bus.js';
import type { PositionedEvent } from './outbox-event.js';

export interface EventStreamOptions<T> {
  /** The sales unit, stream type and names the subscriber may and wants to see. */
  filter: EventFilter;
  /** The event as the subscriber's domain shows it (a payment event, a QR scan, ...). */
  map: (event: PositionedEvent) => T;
  /** Narrows the admitted events further (by reference, say). */
  accept?: (event: T) => boolean;
  /** Events held for a consumer that does not keep up; past this the stream fails instead of growing. */
  maxBuffered?: number;
}

export const DEFAULT_MAX_BUFFERED = 1_000;

export class SubscriberTooSlowError extends Error {
  constructor(readonly maxBuffered: number) {
    super(`The subscriber fell more than ${maxBuffered} events behind; subscribe again and catch up from the payment's events`);
  }
}

/** A consumer that takes a stream's events as the bus publishes them, and holds those it has not finished with. */
export interface EventTap<T> {
  event(event: T): void;
  /** The stream failed (the consumer held too many events); no event follows. */
  failed(error: Error): void;
  /** Events taken and not yet finished with: the stream's bound applies to them as to its own buffer. */
  held(): number;
}

/** An event stream that can hand its events to a consumer as they come, instead of through `next()`. */
export interface TappableEventStream<T> extends AsyncIterableIterator<T> {
  /**
   * From now on, each admitted event goes to `tap` synchronously, as the bus publishes it (those already buffered
   * first), instead of through `next()`, which must not be called after. `return()` still ends the stream. For a
   * consumer that keeps its own order and writes at once: a thousand subscribers then cost one call each per event,
   * not a chain of promises each (subscription-execution.ts).
   */
  tap(tap: EventTap<T>): void;
}

export function isTappable<T>(stream: AsyncIterator<T>): stream is TappableEventStream<T> {
  return typeof (stream as Partial<TappableEventStream<T>>).tap === 'function';
}

/**
 * A stream whose values each name the outbox event they came from. Subscribers of one event that hold the same
 * operation share one execution of it (subscription-sharing.ts) by that id, whatever object each one's stream made
 * of the event: a stream that maps each event to a fresh object per subscriber still shares.
 */
export interface EventKeyedStream<T> {
  eventIdOf(value: T): number;
}

/** Declares how the stream's values name their event (onto the iterator itself, as `tap`). */
export function keyedByEvent<S extends AsyncIterableIterator<unknown>>(
  stream: S,
  eventIdOf: (value: ValueOf<S>) => number,
): S & EventKeyedStream<ValueOf<S>> {
  return Object.assign(stream, { eventIdOf });
}

type ValueOf<S> = S extends AsyncIterator<infer T> ? T : never;

export function isEventKeyed<T>(stream: AsyncIterator<T>): stream is AsyncIterator<T> & EventKeyedStream<T> {
  return typeof (stream as Partial<EventKeyedStream<T>>).eventIdOf === 'function';
}

/**
 * One subscriber's events as an async iterator, subscribed to the bus from the moment it is created. `return()`
 * unsubscribes at once, even while a `next()` is waiting, so a client that goes away leaves nothing behind.
 */
export function eventStream<T>(bus: DomainEventBus, options: EventStreamOptions<T>): TappableEventStream<T> {
  const maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  const buffered: T[] = [];
  const waiting: ((result: IteratorResult<T>) => void)[] = [];
  let failure: Error | undefined;
  let done = false;
  let tapped: EventTap<T> | undefined;

  const unsubscribe = bus.subscribe(options.filter, (outboxEvent) => {
    if (done || failure) return;
    const event = options.map(outboxEvent);
    if (options.accept && !options.accept(event)) return;
    const next = tapped ? undefined : waiting.shift();
    if (next) return next({ done: false, value: event });
    // One bound, on what the stream holds for its consumer: its buffer, or what a tap holds.
    if ((tapped ? tapped.held() : buffered.length) < maxBuffered) {
      if (tapped) tapped.event(event);
      else buffered.push(event);
      return;
    }
    failure = new SubscriberTooSlowError(maxBuffered);
    unsubscribe();
    tapped?.failed(failure);
  });

  const finish = (): IteratorResult<T> => {
    if (!done) {
      done = true;
      unsubscribe();
      buffered.length = 0;
      for (const resolve of waiting.splice(0)) resolve({ done: true, value: undefined });
    }
    return { done: true, value: undefined };
  };

  const next = async (): Promise<IteratorResult<T>> => {
    if (buffered.length > 0) return { done: false, value: buffered.shift()! };
    if (failure) {
      const error = failure;
      finish();
      throw error;
    }
    if (done) return { done: true, value: undefined };
    return new Promise((resolve) => waiting.push(resolve));
  };
  // Onto the iterator itself, which its [Symbol.asyncIterator]() returns: the tap must be found there.
  return Object.assign(closingIterator(next, finish), {
    tap(tap: EventTap<T>) {
      tapped = tap;
      for (const event of buffered.splice(0)) tap.event(event);
      if (failure) tap.failed(failure);
    },
  });
}
