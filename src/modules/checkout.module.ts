import { checkoutResolvers } from '../../resolvers/checkout.js';
import { salesUnitNode } from '../platform/auth/tenancy.js';
import type { DomainModule } from '../platform/module.js';
import { CheckoutSession } from '../checkout/checkout-session.entity.js';
import {
  expireDueSessions,
  nextSessionExpiry,
  nextSessionToSettle,
  settleSessionsFromPayments,
} from '../checkout/checkout-session-expiry.job.js';
import { findSessionNode } from '../checkout/checkout-session.service.js';
import { checkoutCallbackKind } from '../checkout/checkout-session.recorder.js';
import { checkoutSessionStateMachine } from '../checkout/checkout-session.transitions.js';
import { checkoutPages } from '../checkout/checkout.pages.js';
import { checkoutRoutes } from '../checkout/checkout.routes.js';
import { Migration20261123161100CheckoutSessions } from '../checkout/migrations/Migration20261123161100CheckoutSessions.js';
import '../checkout/checkout.errors.js';

/** Checkout sessions (FACTS §8): a layer over ePayment with its own page, callbacks and dynamic shipping. */
export const checkoutModule: DomainModule = {
  name: 'checkout',
  entities: [CheckoutSession],
  migrations: [{ name: 'Migration20261123161100CheckoutSessions', class: Migration20261123161100CheckoutSessions }],
  routes: checkoutRoutes,
  pages: (services) => checkoutPages(services),
  resolvers: [checkoutResolvers],
  nodes: { CheckoutSession: salesUnitNode(findSessionNode) },
  jobs: (services) => [
    { name: 'expire-checkout-sessions', run: () => expireDueSessions(services), nextDueFor: (msn) => nextSessionExpiry(services, msn) },
    {
      name: 'settle-checkout-sessions',
      run: () => settleSessionsFromPayments(services),
      nextDueFor: (msn) => nextSessionToSettle(services, msn),
    },
  ],
  stateMachines: [checkoutSessionStateMachine],
  callbackKinds: [checkoutCallbackKind],
};
