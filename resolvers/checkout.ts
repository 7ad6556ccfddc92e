import type { CheckoutErrorCode, Resolvers } from '../src/generated/graphql.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import { cursorsOf, keysetPage, newestFirst as newestFirstOf, toGlobalId } from '../src/platform/graph/relay.js';
import { paymentFieldsByIdLoader } from '../src/payments/payment.loaders.js';
import { toPaymentViewAt } from '../src/payments/payment.view.js';
import type { CheckoutSession } from '../src/checkout/checkout-session.entity.js';
import { createSessionBody } from '../src/checkout/checkout-session.schemas.js';
import { createCheckoutSession, findSession, findSessionNode, listCheckoutSessions } from '../src/checkout/checkout-session.service.js';
import { expireCheckoutSession, updateCheckoutSession } from '../src/checkout/checkout-session-merchant.service.js';
import { updateSessionBody } from '../src/checkout/checkout-session-update.schemas.js';
import { subscribeToSessionEvents } from '../src/checkout/checkout-session.subscription.js';
import type { OutboxEvent } from '../src/platform/events/outbox-event.js';
import { checkoutPageUrl, paymentDetailsState } from '../src/checkout/checkout-session.view.js';
import type { GraphQLContext } from '../src/platform/graph/graphql-context.js';
import { scoped } from '../src/platform/auth/tenancy.js';

const CHECKOUT_ERROR_CODES = userErrorCodes<CheckoutErrorCode>({
  VALIDATION_FAILED: true,
  CHECKOUT_REFERENCE_ALREADY_USED: true,
  CHECKOUT_SALES_UNIT_NOT_ALLOWED: true,
  CHECKOUT_SESSION_NOT_FOUND: true,
  CHECKOUT_SESSION_NOT_MODIFIABLE: true,
});

const money = (value: number, currency: CheckoutSession['currency']) => ({ value, currency });

function sessionPayment(session: CheckoutSession, { request }: GraphQLContext) {
  if (!session.paymentId) return Promise.resolve(null);
  return request.loaders.get(paymentFieldsByIdLoader).load({ msn: session.msn, id: session.paymentId });
}

/** The graph's checkout face: the same session service and request rules as `POST /checkout/v3/session`. */
export const checkoutResolvers: Resolvers = {
  Query: {
    checkoutSession: async (_, { reference }, { request }) => findSession(request.em, scoped(request).msn, reference),
    checkoutSessions: async (_, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, newestFirst, 20, cursorsOf('Query.checkoutSessions', request));
      return page.connection(await listCheckoutSessions(request, { limit: page.limit, before: page.after }));
    },
  },
  Mutation: {
    createCheckoutSession: (_, { input }, { request }) =>
      withUserErrors(CHECKOUT_ERROR_CODES, async () => {
        const created = await createCheckoutSession(request, createSessionBody.parse(input));
        return {
          session: created.session,
          token: created.token,
          checkoutFrontendUrl: created.checkoutFrontendUrl,
          pollingUrl: created.pollingUrl,
        };
      }),
    updateCheckoutSession: (_, { input: { reference, ...update } }, { request }) =>
      withUserErrors(CHECKOUT_ERROR_CODES, async () => ({
        session: (await updateCheckoutSession(request, reference, updateSessionBody.parse(update))).session,
      })),
    expireCheckoutSession: (_, { input }, { request }) =>
      withUserErrors(CHECKOUT_ERROR_CODES, async () => ({ session: (await expireCheckoutSession(request, input.reference)).session })),
  },
  Subscription: {
    checkoutSessionEvents: {
      subscribe: (_, args, context) => subscribeToSessionEvents(context, args),
      resolve: (event: OutboxEvent) => event,
    },
  },
  CheckoutSessionNotification: {
    reference: (e) => String(e.payload.reference),
    sessionState: (e) => e.payload.sessionState as CheckoutSession['state'],
    occurredAt: (e) => e.occurredAt.toISOString(),
    session: async (e, _, { request }) => {
      const session = await findSessionNode(request, e.streamId);
      // The stream is bound to the event's sales unit and sessions are never deleted: a broken invariant otherwise.
      if (!session) throw new Error(`Checkout session ${e.streamId} of event ${e.id} not found`);
      return session;
    },
  },
  CheckoutSession: {
    id: (s) => toGlobalId('CheckoutSession', s.id),
    sessionId: (s) => s.id,
    merchantSerialNumber: (s) => s.msn,
    sessionState: (s) => s.state,
    amount: (s) => money(s.amount, s.currency),
    checkoutFrontendUrl: (s, _, { request }) => checkoutPageUrl(request.config.publicUrl, s.pageToken),
    paymentDetails: async (s, _, context) => {
      const payment = await sessionPayment(s, context);
      if (!payment) return null;
      return {
        amount: money(payment.amount, payment.currency),
        state: paymentDetailsState(payment, context.request.clock.now()),
        aggregate: {
          authorizedAmount: money(payment.authorizedAmount, payment.currency),
          cancelledAmount: money(payment.cancelledAmount, payment.currency),
          capturedAmount: money(payment.capturedAmount, payment.currency),
          refundedAmount: money(payment.refundedAmount, payment.currency),
        },
      };
    },
    payment: async (s, _, context) => {
      const payment = await sessionPayment(s, context);
      return payment ? toPaymentViewAt(payment, context.request.config, context.request.clock.now()) : null;
    },
    shippingDetails: (s) => s.shippingDetails ?? null,
    billingDetails: (s) => s.billingDetails ?? null,
    userInfo: (s) => s.userInfo ?? null,
    customConsentProvided: (s) => s.customConsentProvided ?? null,
    expiresAt: (s) => s.expiresAt.toISOString(),
    createdAt: (s) => s.createdAt.toISOString(),
  },
};

/** Sessions newest first: the cursor carries (createdAt, id). */
const newestFirst = newestFirstOf<CheckoutSession>();
