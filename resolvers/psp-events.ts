import type { Resolvers } from '../src/generated/graphql.js';
import { cursorsOf, idKeyset, keysetPage } from '../src/platform/graph/relay.js';
import { pspEventsByPaymentIdLoader } from '../src/psp/psp-payment-events.queries.js';

export const pspEventResolvers: Resolvers = {
  PspPayment: {
    // The payment came from a read scoped to the calling PSP, so its events are the PSP's.
    events: async (p, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, idKeyset, 50, cursorsOf('PspPayment.events', request, { parent: p.id }));
      const rows = await request.loaders.get(pspEventsByPaymentIdLoader).load({ paymentId: p.id, limit: page.limit, afterId: page.after });
      return page.connection(rows);
    },
  },
};
