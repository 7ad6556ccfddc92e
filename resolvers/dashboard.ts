import type { Resolvers } from '../src/generated/graphql.js';
import { listCallerSalesUnits } from '../src/merchants/sales-unit.queries.js';
import {
  defaultPeriodStart,
  listRecentPaymentEvents,
  periodStart,
  readPaymentEventsPerMinute,
  readPaymentTotals,
} from '../src/payments/payment-activity.queries.js';
import { cursorsOf, idKeyset, keysetPage, mapNodes } from '../src/platform/graph/relay.js';
import { readEventLog } from '../src/platform/events/event-log.queries.js';
import { subscribeToStreamEvents } from '../src/platform/events/event-log.subscription.js';
import type { OutboxEvent } from '../src/platform/events/outbox-event.js';
import { listPaymentWebhookDeliveries, readWebhookFailureRate } from '../src/webhooks/webhook-activity.queries.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What an operations dashboard reads: sales units, totals, rates, recent events, deliveries and failure rates. */
export const dashboardResolvers: Resolvers = {
  Query: {
    salesUnits: (_, __, { request }) => listCallerSalesUnits(request),
    paymentTotals: async (_, { since }, { request }) => {
      const start = since ? periodStart(request, since, 31) : defaultPeriodStart(request, 'day');
      const totals = await readPaymentTotals(request, start);
      return { ...totals, since: totals.since.toISOString(), asOf: totals.asOf.toISOString() };
    },
    paymentEventsPerMinute: async (_, { since }, { request }) => {
      const start = since ? periodStart(request, since, 1) : defaultPeriodStart(request, { hours: 1 });
      const rows = await readPaymentEventsPerMinute(request, start);
      return rows.map((row) => ({ minute: row.minute.toISOString(), count: row.count }));
    },
    events: async (_, { first, after, filter }, { request }) => {
      const page = keysetPage({ first, after }, idKeyset, 50, cursorsOf('Query.events', request, { filter }));
      const rows = await readEventLog(request, filter, { limit: page.limit, beforeId: page.after });
      return page.connection(rows);
    },
    recentPaymentEvents: async (_, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, idKeyset, 50, cursorsOf('Query.recentPaymentEvents', request));
      const connection = page.connection(await listRecentPaymentEvents(request, { limit: page.limit, beforeId: page.after }));
      return mapNodes(connection, (event) => ({ event }));
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
  },
  Payment: {
    webhookDeliveries: async (p, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, idKeyset, 20, cursorsOf('Payment.webhookDeliveries', request, { parent: p.id }));
      return page.connection(await listPaymentWebhookDeliveries(request, p.id, { limit: page.limit, beforeId: page.after }));
    },
  },
  Webhook: {
    failureRate: async (w, { since }, { request }) => {
      const start = since ? periodStart(request, since, 31) : new Date(request.clock.now().getTime() - DAY_MS);
      const rate = await readWebhookFailureRate(request, w.id, start);
      return { ...rate, since: rate.since.toISOString() };
    },
  },
};
