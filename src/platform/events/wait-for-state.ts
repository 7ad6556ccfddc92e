import type { DomainEventBus } from './domain-event-bus.js';

/** What a page shows of the one thing (a payment, a session) its token names. */
export interface LiveState {
  state: string;
  /** Its user (the payer, the buyer) can still act on it: the page offers its choices. */
  awaitsUser: boolean;
  /** It is in an end state and will not change again: the page stops asking. */
  settled: boolean;
  /** The amount the page shows, where it may change while the state does not (a checkout session the merchant updates). */
  shownAmount?: string;
}

/** What a page compares to know whether what it shows is still current: the state, and the amount where it may change. */
export function liveKey(live: Pick<LiveState, 'state' | 'shownAmount'>): string {
  return live.shownAmount === undefined ? live.state : `${live.state} ${live.shownAmount}`;
}

/** The event stream whose events may change a thing: its sales unit, its stream type and its id. */
export interface StreamRef {
  msn: string;
  streamType: string;
  streamId: string;
}

/** One reading of the thing a token names: where its events come from, and what its page shows of it now. */
export interface LiveReading {
  stream: StreamRef;
  live: LiveState;
}

/** How long one request waits for a change before answering with the state unchanged (the page then asks again). */
export const LIVE_STATE_WAIT_MS = 25_000;

/**
 * The state `read` finds as soon as it differs from `known`, the state a page shows (its `liveKey`): at once when it already
 * does, else when an event of the thing's own stream commits and the state read after it differs (from the event
 * bus, no polling), or unchanged after `waitMs`. Only events of that one stream (sales unit, type and id) wake the
 * wait, so another payment of the same merchant costs it nothing. Undefined when `read` finds nothing (an unknown
 * token), or when `signal` aborts (the client went away, or the server is closing).
 */
export async function waitForStateChange(
  events: Pick<DomainEventBus, 'subscribe'>,
  read: () => Promise<LiveReading | undefined>,
  known: string,
  options: { waitMs?: number; signal?: AbortSignal } = {},
): Promise<LiveState | undefined> {
  const { waitMs = LIVE_STATE_WAIT_MS, signal } = options;
  const first = await read();
  if (!first || signal?.aborted) return undefined;
  if (liveKey(first.live) !== known) return first.live;
  const { stream } = first;
  /** An event of the stream came since the last read. */
  let stirred = false;
  /** The time is up, or nobody waits for the answer any more. */
  let over = false;
  let wake: () => void = () => undefined;
  const unsubscribe = events.subscribe({ msn: stream.msn, streamType: stream.streamType }, (event) => {
    if (event.streamId !== stream.streamId) return;
    stirred = true;
    wake();
  });
  const end = (): void => {
    over = true;
    wake();
  };
  const timer = setTimeout(end, waitMs);
  signal?.addEventListener('abort', end, { once: true });
  try {
    // Read again once subscribed: an event committing after the first read is seen by this read or wakes the wait.
    for (;;) {
      stirred = false;
      const reading = await read();
      if (!reading || signal?.aborted) return undefined;
      if (liveKey(reading.live) !== known || over) return reading.live;
      if (!stirred) await new Promise<void>((resolve) => (wake = resolve));
      if (signal?.aborted) return undefined;
      // Woken by the time, not by an event: nothing changed.
      if (!stirred) return reading.live;
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', end);
    unsubscribe();
  }
}
