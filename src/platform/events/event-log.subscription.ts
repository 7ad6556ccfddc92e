import { GraphQLError } from 'graphql';
import { scoped } from '../auth/tenancy.js';
import type { GraphQLContext } from '../graph/graphql-context.js';
import { eventStream } from './event-stream.js';
import { readEventLogAfter } from './event-log.queries.js';
import type { OutboxEvent } from './outbox-event.js';
import { MAX_REPLAYED, resumedStream } from './resumed-stream.js';

export interface StreamEventSubscriptionArgs {
  names?: readonly string[] | null;
  streamType?: string | null;
  /** An event id (StreamEvent.eventId): replay what came after it, then go live. */
  after?: string | null;
}

/**
 * The caller's committed events of every stream from now on, or from after an event id: the live events feed.
 * Bound to the sales unit the connection authenticated for; the arguments only narrow it. Resumes exactly as
 * `paymentEvents(after:)` does (resumed-stream.ts): live first subscribed, then the replay read, no gap, none twice.
 */
export function subscribeToStreamEvents(context: GraphQLContext, args: StreamEventSubscriptionArgs): AsyncIterableIterator<OutboxEvent> {
  const msn = scoped(context.request).msn;
  const streamType = args.streamType ?? undefined;
  const names = args.names?.length ? args.names : undefined;
  const after = args.after == null ? undefined : eventIdOf(args.after);
  const live = eventStream(context.services.events, {
    filter: { msn, streamType, names: names && new Set(names) },
    map: (event) => event,
  });
  if (after === undefined) return live;
  const past = () => readEventLogAfter(context.request, { names, streamType }, { afterId: after, limit: MAX_REPLAYED + 1 });
  return resumedStream(live, past, (event) => event.id, after);
}

/** An event id as the webhook header and StreamEvent.eventId give it: a decimal integer. */
function eventIdOf(id: string): number {
  if (!/^\d{1,15}$/.test(id))
    throw new GraphQLError('after is not an event id', { extensions: { code: 'BAD_USER_INPUT', field: 'after' } });
  return Number(id);
}
