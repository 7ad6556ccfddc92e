import { GraphQLError } from 'graphql';
import type { Resolvers } from '../src/generated/graphql.js';
import { scoped } from '../src/platform/auth/tenancy.js';
import { deliveryReadByEventIdLoader } from '../src/platform/events/delivery-read.loader.js';
import { positionKeyset, readEventLog } from '../src/platform/events/event-log.queries.js';
import { eventTypes } from '../src/platform/events/event-types.js';
import { subscribeToStreamEvents } from '../src/platform/events/event-log.subscription.js';
import type { OutboxEvent } from '../src/platform/events/outbox-event.js';
import { resumePosition } from '../src/platform/events/resumed-stream.js';
import { cursorsOf, keysetPage } from '../src/platform/graph/relay.js';

const oldestFirstOnly = () =>
  new GraphQLError('afterEventId starts an oldest-first read: give order OLDEST_FIRST', {
    extensions: { code: 'BAD_USER_INPUT', field: 'afterEventId' },
  });

/** Every stream's committed events of the caller's sales unit: the history, either way, and the live stream. */
export const platformEventResolvers: Resolvers = {
  Query: {
    events: async (_, { first, after, filter, order, afterEventId }, { request }) => {
      const oldestFirst = order === 'OLDEST_FIRST';
      if (afterEventId != null && !oldestFirst) throw oldestFirstOnly();
      const bound = oldestFirst ? { ...filter, order } : filter;
      const page = keysetPage({ first, after }, positionKeyset, 50, cursorsOf('Query.events', request, { filter: bound }));
      const from = () => (afterEventId == null ? 0 : resumePosition(request.em, scoped(request).msn, afterEventId, 'afterEventId'));
      const rows = oldestFirst
        ? await readEventLog(request, filter, { limit: page.limit, afterPosition: page.after ?? (await from()) })
        : await readEventLog(request, filter, { limit: page.limit, newestFirst: true, beforePosition: page.after });
      return page.connection(rows);
    },
  },
  Subscription: {
    streamEvents: {
      subscribe: (_, args, context) => subscribeToStreamEvents(context, args),
      resolve: (event: OutboxEvent) => event,
    },
  },
  StreamEvent: {
    eventId: (e) => String(e.id),
    reference: (e) => (typeof e.payload.reference === 'string' ? e.payload.reference : null),
    occurredAt: (e) => e.occurredAt.toISOString(),
    payload: (e) => JSON.stringify(e.payload),
    webhookBody: async (e, _, { request }) => {
      const read = eventTypes.needsDeliveryRead(e) ? await request.loaders.get(deliveryReadByEventIdLoader).load(String(e.id)) : undefined;
      return eventTypes.webhookBodyOf(e, read);
    },
  },
};
