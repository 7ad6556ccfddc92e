import { scoped } from '../platform/auth/tenancy.js';
import { eventStream, keyedByEvent } from '../platform/events/event-stream.js';
import type { OutboxEvent } from '../platform/events/outbox-event.js';
import type { SalesUnitGraphQLContext } from '../platform/graph/graphql-context.js';
import { CHECKOUT_SESSION_STREAM } from './checkout-session.recorder.js';

/**
 * The caller's committed session events from now on (no public webhook event exists for sessions, so the graph is
 * where they are seen live). The stream is bound to the sales unit the connection authenticated for; the reference
 * can only narrow it.
 */
export function subscribeToSessionEvents(
  context: SalesUnitGraphQLContext,
  args: { reference?: string | null },
): AsyncIterableIterator<OutboxEvent> {
  const reference = args.reference ?? undefined;
  const events = eventStream(context.services.events, {
    filter: { msn: scoped(context.request).msn, streamType: CHECKOUT_SESSION_STREAM },
    map: (event) => event,
    accept: (event) => reference === undefined || event.payload.reference === reference,
  });
  return keyedByEvent(events, (event) => event.id);
}
