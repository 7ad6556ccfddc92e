import { paymentResolvers } from '../../resolvers/payments.js';
import { paymentActivityResolvers } from '../../resolvers/payments-activity.js';
import { paymentMutationResolvers } from '../../resolvers/payments-mutations.js';
import { paymentSubscriptionResolvers } from '../../resolvers/payments-subscriptions.js';
import { salesUnitNode } from '../platform/auth/tenancy.js';
import type { DomainModule } from '../platform/module.js';
import { findPaymentEventById } from '../payments/payment-event.queries.js';
import { paymentEventTypes } from '../payments/payment-event.types.js';
import { expireDuePayments, nextPaymentExpiry } from '../payments/payment-expiry.job.js';
import { Payment } from '../payments/payment.entity.js';
import { findPaymentById } from '../payments/payment.queries.js';
import { paymentRateLimits } from '../payments/payment.rate-limits.js';
import { paymentRoutes } from '../payments/payment.routes.js';
import { paymentStateMachine } from '../payments/payment.transitions.js';
import { Migration20261205030100PendingByCustomer } from '../payments/migrations/Migration20261205030100PendingByCustomer.js';
import '../payments/payment.errors.js';
import '../payments/express.errors.js';
import { Migration20261205020000ExpressShipping } from '../payments/migrations/Migration20261205020000ExpressShipping.js';
import { Migration20261205033000MinimumUserAge } from '../payments/migrations/Migration20261205033000MinimumUserAge.js';
import { Migration20261205050000PaymentReferencePrefix } from '../payments/migrations/Migration20261205050000PaymentReferencePrefix.js';
import { Migration20261205060100PaymentPersonalData } from '../payments/migrations/Migration20261205060100PaymentPersonalData.js';
import { paymentPersonalDataRetention } from '../payments/payment-personal-data.retention.js';

/** The ePayment API: payments, their event log (the `payment` stream of the outbox), expiry. */
export const paymentsModule: DomainModule = {
  name: 'payments',
  entities: [Payment],
  migrations: [
    { name: 'Migration20261205020000ExpressShipping', class: Migration20261205020000ExpressShipping },
    { name: 'Migration20261205030100PendingByCustomer', class: Migration20261205030100PendingByCustomer },
    { name: 'Migration20261205033000MinimumUserAge', class: Migration20261205033000MinimumUserAge },
    { name: 'Migration20261205050000PaymentReferencePrefix', class: Migration20261205050000PaymentReferencePrefix },
    { name: 'Migration20261205060100PaymentPersonalData', class: Migration20261205060100PaymentPersonalData },
  ],
  retention: [paymentPersonalDataRetention],
  routes: paymentRoutes,
  resolvers: [paymentResolvers, paymentMutationResolvers, paymentSubscriptionResolvers, paymentActivityResolvers],
  nodes: { Payment: salesUnitNode(findPaymentById), PaymentEvent: salesUnitNode(findPaymentEventById) },
  jobs: (services) => [
    { name: 'expire-payments', run: () => expireDuePayments(services), nextDueFor: (msn) => nextPaymentExpiry(services, msn) },
  ],
  stateMachines: [paymentStateMachine],
  eventTypes: [paymentEventTypes],
  rateLimitedRoutes: paymentRateLimits,
};
