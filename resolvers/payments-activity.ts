import type { Resolvers } from '../src/generated/graphql.js';
import {
  defaultPeriodStart,
  listRecentPaymentEvents,
  periodStart,
  readPaymentEventsPerMinute,
  readPaymentTotals,
} from '../src/payments/payment-activity.queries.js';
import { cursorsOf, idKeyset, keysetPage, mapNodes } from '../src/platform/graph/relay.js';

/** What an operations dashboard reads of payments: totals, event rates and the recent events. */
export const paymentActivityResolvers: Resolvers = {
  Query: {
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
    recentPaymentEvents: async (_, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, idKeyset, 50, cursorsOf('Query.recentPaymentEvents', request));
      const connection = page.connection(await listRecentPaymentEvents(request, { limit: page.limit, beforeId: page.after }));
      return mapNodes(connection, (event) => ({ event }));
    },
  },
};
