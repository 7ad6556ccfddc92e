import type { Resolvers } from '../src/generated/graphql.js';
import { subscribeToPaymentEvents } from '../src/payments/payment-event.subscription.js';
import type { PaymentEvent } from '../src/payments/payment-event.entity.js';
import { scoped } from '../src/platform/auth/tenancy.js';
import { paymentFieldsByIdLoader } from '../src/payments/payment.loaders.js';
import { toPaymentViewAt, type PaymentView } from '../src/payments/payment.view.js';
import type { SalesUnitContext } from '../src/platform/context.js';

export const paymentSubscriptionResolvers: Resolvers = {
  Subscription: {
    paymentEvents: {
      subscribe: (_, args, context) => subscribeToPaymentEvents(context, args),
      resolve: (event: PaymentEvent) => ({ event }),
    },
  },
  PaymentEventNotification: {
    // Through the loader: the caller's operations on one event share a context (subscription-execution.ts), and so
    // one read of the payment, for each of these fields.
    payment: async ({ event }, _, { request }) => paymentOf(event, request),
    // Read when the notification is sent, as the authorized webhook's body: the outbox keeps no personal data.
    userDetails: async ({ event }, _, { request }) => (event.name === 'AUTHORIZED' ? (await paymentOf(event, request)).userDetails : null),
    shippingDetails: async ({ event }, _, { request }) => {
      if (event.name !== 'AUTHORIZED') return null;
      const payment = await paymentOf(event, request);
      return (
        payment.shippingDetails && {
          ...payment.shippingDetails,
          shippingCost: { value: payment.shippingDetails.shippingCost, currency: payment.currency },
        }
      );
    },
  },
};

/** The event's payment, through the loader: the caller's operations on one event share a context, and so one read. */
async function paymentOf(event: PaymentEvent, request: SalesUnitContext): Promise<PaymentView> {
  const payment = await request.loaders.get(paymentFieldsByIdLoader).load({ msn: scoped(request).msn, id: event.paymentId });
  // The stream is bound to the event's sales unit and payments are never deleted, so this is a broken invariant.
  if (!payment) throw new Error(`Payment ${event.paymentId} of event ${event.id} not found`);
  return toPaymentViewAt(payment, request.config, request.clock.now());
}
