import { paymentMutationResolvers } from '../../resolvers/payment-mutations.js';
import { paymentResolvers } from '../../resolvers/payments.js';
import { subscriptionResolvers } from '../../resolvers/subscriptions.js';
import type { DomainModule } from '../platform/module.js';
import { findPaymentEventById } from '../payments/payment-event.queries.js';
import { paymentEventTypes } from '../payments/payment-event.types.js';
import { expireDuePayments } from '../payments/payment-expiry.job.js';
import { Payment } from '../payments/payment.entity.js';
import { findPaymentById } from '../payments/payment.queries.js';
import { paymentRateLimits } from '../payments/payment.rate-limits.js';
import { paymentRoutes } from '../payments/payment.routes.js';
import { paymentStateMachine } from '../payments/payment.transitions.js';
import '../payments/payment.errors.js';

/** The ePayment API: payments, their event log (the `payment` stream of the outbox), expiry. */
export const paymentsModule: DomainModule = {
  name: 'payments',
  entities: [Payment],
  routes: paymentRoutes,
  resolvers: [paymentResolvers, paymentMutationResolvers, subscriptionResolvers],
  nodes: { Payment: findPaymentById, PaymentEvent: findPaymentEventById },
  jobs: (services) => [{ name: 'expire-payments', run: () => expireDuePayments(services) }],
  stateMachines: [paymentStateMachine],
  eventTypes: [paymentEventTypes],
  rateLimitedRoutes: paymentRateLimits,
};
