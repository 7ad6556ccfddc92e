import { prunedBefore } from '../src/platform/lifecycle/retention.js';
import type { Resolvers } from '../src/generated/graphql.js';
import { periodStart } from '../src/payments/payment-activity.queries.js';
import { cursorsOf, idKeyset, keysetPage } from '../src/platform/graph/relay.js';
import { listPaymentWebhookDeliveries, readWebhookFailureRate } from '../src/webhooks/webhook-activity.queries.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** How a payment's webhooks went, and how a registration's receiver is doing. */
export const webhookActivityResolvers: Resolvers = {
  Payment: {
    webhookDeliveries: async (p, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, idKeyset, 20, cursorsOf('Payment.webhookDeliveries', request, { parent: p.id }));
      return page.connection(await listPaymentWebhookDeliveries(request, p.id, { limit: page.limit, beforeId: page.after }));
    },
    webhookDeliveriesPrunedBefore: async (p, _, { request }) => {
      const cutoff = await prunedBefore(request.em, 'deliveries');
      return cutoff && new Date(p.createdAt).getTime() < cutoff.getTime() ? cutoff.toISOString() : null;
    },
  },
  Webhook: {
    failureRate: async (w, { since }, { request, services }) => {
      // Attempts are stamped by the service's clock, never by a sales unit's test clock: so is their window.
      const start = since ? periodStart(services, since, 31) : new Date(services.clock.now().getTime() - DAY_MS);
      const rate = await readWebhookFailureRate(request, w.id, start);
      return { ...rate, since: rate.since.toISOString() };
    },
  },
};
