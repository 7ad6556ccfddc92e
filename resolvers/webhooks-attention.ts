import type { Resolvers } from '../src/generated/graphql.js';
import { listPaymentsNeedingAttention, type PaymentNeedingAttention } from '../src/webhooks/payment-attention.queries.js';
import { cursorsOf, keysetPage, newestFirst } from '../src/platform/graph/relay.js';

/** Payments that need attention, newest first: the cursor carries the payment's (createdAt, id). */
const newestPaymentFirst = newestFirst<PaymentNeedingAttention>();

export const paymentAttentionResolvers: Resolvers = {
  Query: {
    paymentsNeedingAttention: async (_, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, newestPaymentFirst, 20, cursorsOf('Query.paymentsNeedingAttention', request));
      return page.connection(await listPaymentsNeedingAttention(request, { limit: page.limit, before: page.after }));
    },
  },
  PaymentAttentionCause: {
    since: (cause) => cause.since.toISOString(),
  },
};
