import { scoped } from '../auth/tenancy.js';
import type { SalesUnitGraphQLContext } from '../graph/graphql-context.js';
import { eventStream, keyedByEvent, type EventStreamOptions } from './event-stream.js';
import type { OutboxEvent } from './outbox-event.js';
import { resumedStream, resumePosition } from './resumed-stream.js';

export interface StreamEventSubscriptionArgs {
  names?: readonly string[] | null;
  streamType?: string | null;
  /** An event id (StreamEvent.eventId): replay what came after it, then go live. */
  after?: string | null;
}

/**
 * The caller's committed events of every stream from now on, or from after an event id: the live events feed.
 * Bound to the sales unit the connection authenticated for; the arguments only narrow it. Resumes exactly as
 * `paymentEvents(after:)` does (resumed-stream.ts): by position, paged, no gap, none twice.
 */
export async function subscribeToStreamEvents(
  context: SalesUnitGraphQLContext,
  args: StreamEventSubscriptionArgs,
): Promise<AsyncIterableIterator<OutboxEvent>> {
  const msn = scoped(context.request).msn;
  const names = args.names?.length ? new Set(args.names) : undefined;
  const options: EventStreamOptions<OutboxEvent> = {
    filter: { msn, streamType: args.streamType ?? undefined, names },
    map: (event) => event,
  };
  // Subscribers holding the same operation share each event's execution, by the event's id (subscription-sharing.ts).
  if (args.after == null) return keyedByEvent(eventStream(context.services.events, options), idOf);
  const position = await resumePosition(context.request.em, msn, args.after);
  return keyedByEvent(resumedStream(context.services.events, context.request.em, options, position), idOf);
}

const idOf = (event: OutboxEvent): number => event.id;
