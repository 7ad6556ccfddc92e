import { GraphQLError } from 'graphql';
import type { Em } from '../db/orm.js';
import { closingIterator } from './closing-iterator.js';
import type { DomainEventBus } from './domain-event-bus.js';
import { positionOfEvent, readStreamAfter } from './stream-order.js';
import { sequenceAll } from './event-sequencer.js';
import { eventStream, type EventStreamOptions } from './event-stream.js';

/** Events one replay read brings: a resume from any event, however far back, reads page after page. */
export const REPLAY_PAGE = 250;

/**
 * The position of the event `eventId` (its id, as the webhook header and the graph give it): where a subscription
 * resuming after it, or an oldest-first read after it, continues. Whatever committed by now is sequenced first: the
 * event itself (a webhook can bring its id before the bus sequenced it), and what followed it, which the replay then
 * reads in pages rather than the live stream bringing it all at once. An id that is no event of the caller's sales
 * unit is refused, naming `field`; another unit's event is refused as a missing one.
 */
export async function resumePosition(em: Em, msn: string, eventId: string, field = 'after'): Promise<number> {
  if (!/^\d{1,15}$/.test(eventId)) throw new GraphQLError(`${field} is not an event id`, { extensions: { code: 'BAD_USER_INPUT', field } });
  // No event has id 0: it names the start of the stream, so a client that holds no event yet replays everything.
  if (Number(eventId) === 0) return 0;
  await sequenceAll(em);
  const position = await positionOfEvent(em, msn, Number(eventId));
  if (position === undefined || position === null)
    throw new GraphQLError(`${field} is not an event of this sales unit`, { extensions: { code: 'BAD_USER_INPUT', field } });
  return position;
}

/**
 * A subscription that resumes after a position: the stream's events after it, read page by page as the subscriber
 * takes them (however many), then live. The live stream is subscribed once a page comes back short, and one more page
 * is read after that, so an event committed in between is in that page or comes live; whatever the replay gave is
 * skipped live, by position. So the subscriber gets, in position order (commit order), every event after the one it
 * resumed from, each once: what committed after it saw that event, below its id or above. `return()` ends it at
 * once, even while it waits.
 */
export function resumedStream<T>(
  bus: DomainEventBus,
  em: Em,
  options: EventStreamOptions<T>,
  afterPosition: number,
): AsyncIterableIterator<T> {
  const { filter, map, accept } = options;
  const slice = { msn: filter.msn, streamType: filter.streamType, names: filter.names && [...filter.names] };
  let position = afterPosition;
  const replayed: T[] = [];
  let live: AsyncIterableIterator<{ position: number; event: T }> | undefined;
  let caughtUp = false;
  let closed = false;
  const close = async () => {
    closed = true;
    await live?.return?.();
  };
  const next = async (): Promise<IteratorResult<T>> => {
    for (;;) {
      if (closed) return { done: true, value: undefined };
      if (replayed.length > 0) return { done: false, value: replayed.shift()! };
      if (caughtUp) {
        const result = await live!.next();
        if (result.done || closed) return { done: true, value: undefined };
        if (result.value.position <= position) continue;
        position = result.value.position;
        return { done: false, value: result.value.event };
      }
      const page = await readStreamAfter(em, slice, { afterPosition: position, limit: REPLAY_PAGE });
      // Closed while the page was read: no live stream may be subscribed after the close.
      if (closed) return { done: true, value: undefined };
      for (const event of page) {
        position = event.position;
        const mapped = map(event);
        if (!accept || accept(mapped)) replayed.push(mapped);
      }
      if (page.length < REPLAY_PAGE) {
        if (live) caughtUp = true;
        else
          live = eventStream(bus, {
            ...options,
            map: (event) => ({ position: event.position, event: map(event) }),
            accept: accept && ((positioned) => accept(positioned.event)),
          });
      }
    }
  };
  return closingIterator(async () => {
    try {
      return await next();
    } catch (error) {
      await close();
      throw error;
    }
  }, close);
}
