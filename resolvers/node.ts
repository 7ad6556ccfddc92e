import type { Resolvers } from '../src/generated/graphql.js';
import { fromGlobalId } from '../src/platform/graph/relay.js';
import { findPaymentById } from '../src/payments/payment.queries.js';
import { findPaymentEventById } from '../src/payments/payment-event.queries.js';
import { findWebhookDelivery } from '../src/webhooks/webhook-delivery.service.js';
import { deliveryKey } from './webhooks.js';

export const nodeResolvers: Resolvers = {
  Query: {
    node: async (_, { id }, { request }) => {
      const global = fromGlobalId(id);
      if (global?.type === 'Payment') {
        const payment = await findPaymentById(request, global.key);
        return payment ? { __typename: 'Payment', ...payment } : null;
      }
      if (global?.type === 'PaymentEvent') {
        const event = await findPaymentEventById(request, global.key);
        return event ? Object.assign(event, { __typename: 'PaymentEvent' as const }) : null;
      }
      if (global?.type === 'WebhookDelivery') {
        // Scoped to the caller's sales unit: another merchant's delivery is null, like a missing one.
        const delivery = await findWebhookDelivery(request, deliveryKey(id));
        return delivery ? { __typename: 'WebhookDelivery', ...delivery } : null;
      }
      return null;
    },
  },
};
