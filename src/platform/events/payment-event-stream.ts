import type { PaymentEvent } from '../../payments/payment-event.entity.js';
import type { PaymentEventBus } from './payment-event-bus.js';

export interface PaymentEventStreamOptions {
  msn: string;
  /** Narrows the sales unit's events further (by reference, by name). */
  accept?: (event: PaymentEvent) => boolean;
  /** Events held for a consumer that does not keep up; past this the stream fails instead of growing. */
  maxBuffered?: number;
}

export const DEFAULT_MAX_BUFFERED = 1_000;

export class SubscriberTooSlowError extends Error {
  constructor(readonly maxBuffered: number) {
    super(`The subscriber fell more than ${maxBuffered} events behind; subscribe again and catch up from the payment's events`);
  }
}

/**
 * One subscriber's events as an async iterator, subscribed to the bus from the moment it is created. `return()`
 * unsubscribes at once, even while a `next()` is waiting, so a client that goes away leaves nothing behind.
 */
export function paymentEventStream(bus: PaymentEventBus, options: PaymentEventStreamOptions): AsyncIterableIterator<PaymentEvent> {
  const maxBuffered = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  const buffered: PaymentEvent[] = [];
  const waiting: ((result: IteratorResult<PaymentEvent>) => void)[] = [];
  let failure: Error | undefined;
  let done = false;

  const unsubscribe = bus.subscribe(options.msn, (event) => {
    if (done || failure || (options.accept && !options.accept(event))) return;
    const next = waiting.shift();
    if (next) next({ done: false, value: event });
    else if (buffered.length < maxBuffered) buffered.push(event);
    else {
      failure = new SubscriberTooSlowError(maxBuffered);
      unsubscribe();
    }
  });

  const finish = (): IteratorResult<PaymentEvent> => {
    if (!done) {
      done = true;
      unsubscribe();
      buffered.length = 0;
      for (const resolve of waiting.splice(0)) resolve({ done: true, value: undefined });
    }
    return { done: true, value: undefined };
  };

  return {
    next: async () => {
      if (buffered.length > 0) return { done: false, value: buffered.shift()! };
      if (failure) {
        const error = failure;
        finish();
        throw error;
      }
      if (done) return { done: true, value: undefined };
      return new Promise((resolve) => waiting.push(resolve));
    },
    return: async () => finish(),
    throw: async (error: unknown) => {
      finish();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
