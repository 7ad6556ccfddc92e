import type { Resolvers } from '../src/generated/graphql.js';
import { subscribeToPaymentEvents } from '../src/payments/payment-event.subscription.js';
import type { PaymentEvent } from '../src/payments/payment-event.entity.js';
import { scoped } from '../src/platform/auth/tenancy.js';
import { paymentFieldsByIdLoader } from '../src/payments/payment.loaders.js';
import { toPaymentViewAt } from '../src/payments/payment.view.js';

export const subscriptionResolvers: Resolvers = {
  Subscription: {
    paymentEvents: {
      subscribe: (_, args, context) => subscribeToPaymentEvents(context, args),
      resolve: (event: PaymentEvent) => ({ event }),
    },
  },
  PaymentEventNotification: {
    // Through the loader: the caller's operations on one event share a context (subscription-execution.ts), and so
    // one read of the payment.
    payment: async ({ event }, _, { request }) => {
      const payment = await request.loaders.get(paymentFieldsByIdLoader).load({ msn: scoped(request).msn, id: event.paymentId });
      // The stream is bound to the event's sales unit and payments are never deleted, so this is a broken invariant.
      if (!payment) throw new Error(`Payment ${event.paymentId} of event ${event.id} not found`);
      return toPaymentViewAt(payment, request.config, request.clock.now());
    },
  },
};
