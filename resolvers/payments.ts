import { paymentAllowances } from '../src/payments/payment-allowances.js';
import type { Resolvers } from '../src/generated/graphql.js';
import { cursorsOf, idKeyset, keysetPage, newestFirst as newestFirstOf, toGlobalId } from '../src/platform/graph/relay.js';
import { getPayment } from '../src/payments/payment.service.js';
import { listPayments } from '../src/payments/payment.queries.js';
import { paymentSearchCriteria, searchKey } from '../src/payments/payment-search.js';
import { paymentOutcomeByIdLoader } from '../src/payments/payment.loaders.js';
import { listPaymentEvents } from '../src/payments/payment-event.queries.js';
import type { PaymentView } from '../src/payments/payment.view.js';
import { AppError } from '../src/platform/errors/app-error.js';

const money = (value: number, currency: PaymentView['currency']) => ({ value, currency });

export const paymentResolvers: Resolvers = {
  Query: {
    payment: async (_, { reference }, { request }) => {
      try {
        return await getPayment(request, reference);
      } catch (error) {
        if (error instanceof AppError && error.code === 'PAYMENT_NOT_FOUND') return null;
        throw error;
      }
    },
    payments: async (_, { first, after, filter }, { request }) => {
      const criteria = paymentSearchCriteria(filter);
      const page = keysetPage(
        { first, after },
        newestFirst,
        20,
        cursorsOf('Query.payments', request, { filter: { search: searchKey(filter) } }),
      );
      return page.connection(await listPayments(request, { ...criteria, limit: page.limit, before: page.after }));
    },
  },
  Payment: {
    id: (p) => toGlobalId('Payment', p.id),
    outcome: (p, _, { services, request }) =>
      request.loaders.get(paymentOutcomeByIdLoader).load({ msn: p.msn, id: p.id, now: services.testClocks.of(p.msn).now() }),
    amount: (p) => money(p.amount, p.currency),
    aggregate: (p) => ({
      authorizedAmount: money(p.authorizedAmount, p.currency),
      cancelledAmount: money(p.cancelledAmount, p.currency),
      capturedAmount: money(p.capturedAmount, p.currency),
      refundedAmount: money(p.refundedAmount, p.currency),
    }),
    allowedActions: (p) => {
      const allowed = paymentAllowances(p);
      return { capture: money(allowed.capturable, p.currency), refund: money(allowed.refundable, p.currency), cancel: allowed.cancel };
    },
    paymentMethod: (p) => ({ type: p.paymentMethodType, cardBin: p.cardBin }),
    profile: (p) => ({ sub: p.profileSub, paymentId: p.id }),
    shippingDetails: (p) => p.shippingDetails && { ...p.shippingDetails, shippingCost: money(p.shippingDetails.shippingCost, p.currency) },
    userDetails: (p) => p.userDetails,
    metadata: (p) => Object.entries(p.metadata ?? {}).map(([key, value]) => ({ key, value })),
    events: async (p, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, idKeyset, 50, cursorsOf('Payment.events', request, { parent: p.id }));
      return page.connection(await listPaymentEvents(request, p.id, { limit: page.limit, afterId: page.after }));
    },
  },
  PaymentEvent: {
    id: (e) => toGlobalId('PaymentEvent', e.id),
    eventId: (e) => String(e.id),
    amount: (e) => money(e.amount, e.currency),
    timestamp: (e) => e.occurredAt.toISOString(),
    idempotencyKey: (e) => e.idempotencyKey ?? null,
  },
};

/** Payments newest first: the cursor carries (createdAt, id). */
const newestFirst = newestFirstOf<PaymentView>();
