import { paymentMutationResolvers } from '../../resolvers/payment-mutations.js';
import { paymentResolvers } from '../../resolvers/payments.js';
import { subscriptionResolvers } from '../../resolvers/subscriptions.js';
import type { DomainModule } from '../platform/module.js';
import { findPaymentEventById } from './payment-event.queries.js';
import { paymentEventTypes } from './payment-event.types.js';
import { expireDuePayments } from './payment-expiry.job.js';
import { Payment } from './payment.entity.js';
import { findPaymentById } from './payment.queries.js';
import { paymentRateLimits } from './payment.rate-limits.js';
import { paymentRoutes } from './payment.routes.js';
import { paymentStateMachine } from './payment.transitions.js';
import './payment.errors.js';

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
