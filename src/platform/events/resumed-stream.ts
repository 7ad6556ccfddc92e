import { closingIterator } from './closing-iterator.js';

/** At most this many past events are replayed to a resuming subscriber; further back, it reads the events connection. */
export const MAX_REPLAYED = 1_000;

export class ReplayTooLongError extends Error {
  constructor() {
    super(`More than ${MAX_REPLAYED} events since that cursor: read them from the events connection, then subscribe after the last one`);
  }
}

/**
 * A subscription that resumes after an event id: first the committed events after it (read by `past`, in id
 * order), then the live stream, which was subscribed before `past` read anything, so nothing committed in between is
 * missed, and whatever the replay already gave is skipped, so nothing comes twice. `return()` ends it at once, even
 * while it waits.
 */
export function resumedStream<T>(
  live: AsyncIterableIterator<T>,
  past: () => Promise<T[]>,
  idOf: (event: T) => number,
  after: number,
): AsyncIterableIterator<T> {
  let replay: Promise<T[]> | undefined;
  const replayed = new Set<number>();
  let closed = false;
  const close = async () => {
    closed = true;
    await live.return?.();
  };
  return closingIterator(async () => {
    if (closed) return { done: true, value: undefined };
    if (!replay) {
      replay = past().then((events) => {
        if (events.length > MAX_REPLAYED) throw new ReplayTooLongError();
        for (const event of events) replayed.add(idOf(event));
        return events;
      });
    }
    let events: T[];
    try {
      events = await replay;
    } catch (error) {
      await close();
      throw error;
    }
    if (events.length > 0) return { done: false, value: events.shift()! };
    for (;;) {
      const result = await live.next();
      if (result.done || closed) return { done: true, value: undefined };
      const id = idOf(result.value);
      if (id > after && !replayed.has(id)) return result;
    }
  }, close);
}
