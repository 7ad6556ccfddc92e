import type { Resolvers } from '../src/generated/graphql.js';
import { subscribeToPaymentEvents } from '../src/payments/payment-event.subscription.js';
import type { PaymentEvent } from '../src/payments/payment-event.entity.js';
import { findPaymentById } from '../src/payments/payment.queries.js';

export const subscriptionResolvers: Resolvers = {
  Subscription: {
    paymentEvents: {
      subscribe: (_, args, context) => subscribeToPaymentEvents(context, args),
      resolve: (event: PaymentEvent) => ({ event }),
    },
  },
  PaymentEventNotification: {
    payment: async ({ event }, _, { request }) => {
      const payment = await findPaymentById(request, event.paymentId);
      // The stream is bound to the event's sales unit and payments are never deleted, so this is a broken invariant.
      if (!payment) throw new Error(`Payment ${event.paymentId} of event ${event.id} not found`);
      return payment;
    },
  },
};
