import type { Resolvers } from '../src/generated/graphql.js';
import { connectionFrom, decodeCursor, encodeCursor, idCursor, invalidCursor, pageSize, toGlobalId } from '../src/platform/graph/relay.js';
import { getPayment } from '../src/payments/payment.service.js';
import { listPayments } from '../src/payments/payment.queries.js';
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
      const size = pageSize(first, 20);
      const before = after ? paymentCursor(after) : undefined;
      const rows = await listPayments(request, { limit: size + 1, states: filter?.state ?? undefined, before });
      return connectionFrom(rows, size, (p) => encodeCursor([p.createdAt, p.id]), Boolean(after));
    },
  },
  Payment: {
    id: (p) => toGlobalId('Payment', p.id),
    amount: (p) => money(p.amount, p.currency),
    aggregate: (p) => ({
      authorizedAmount: money(p.authorizedAmount, p.currency),
      cancelledAmount: money(p.cancelledAmount, p.currency),
      capturedAmount: money(p.capturedAmount, p.currency),
      refundedAmount: money(p.refundedAmount, p.currency),
    }),
    paymentMethod: (p) => ({ type: p.paymentMethodType, cardBin: p.cardBin }),
    profile: (p) => ({ sub: p.profileSub }),
    metadata: (p) => Object.entries(p.metadata ?? {}).map(([key, value]) => ({ key, value })),
    events: async (p, { first, after }, { request }) => {
      const size = pageSize(first, 50);
      const afterId = after ? idCursor(after) : undefined;
      const rows = await listPaymentEvents(request, p.id, { limit: size + 1, afterId });
      return connectionFrom(rows, size, (e) => encodeCursor([e.id]), Boolean(after));
    },
  },
  PaymentEvent: {
    id: (e) => toGlobalId('PaymentEvent', e.id),
    amount: (e) => money(e.amount, e.currency),
    timestamp: (e) => e.occurredAt.toISOString(),
    idempotencyKey: (e) => e.idempotencyKey ?? null,
  },
};

function paymentCursor(after: string): { createdAt: Date; id: string } {
  const [createdAt, id] = decodeCursor(after);
  const date = new Date(String(createdAt));
  if (Number.isNaN(date.getTime()) || typeof id !== 'string') throw invalidCursor();
  return { createdAt: date, id };
}
