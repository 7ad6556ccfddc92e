import type { RequestContext, SalesUnitContext } from '../platform/context.js';
import type { PaymentEvent } from './payment-event.entity.js';
import { firstPaymentEventsByPaymentIdLoader } from './payment.loaders.js';
import { readPaymentEvent, readPaymentEventsAfter } from './payment.read-model.js';
import { scoped } from '../platform/auth/tenancy.js';

export async function findPaymentEventById(ctx: SalesUnitContext, id: string): Promise<PaymentEvent | undefined> {
  if (!/^\d{1,15}$/.test(id)) return undefined;
  return readPaymentEvent(ctx.em, scoped(ctx).msn, Number(id));
}

/**
 * Up to `limit` events of a payment the caller has already read (so tenancy is settled), oldest first. The first
 * page goes through the request's DataLoader, batched with the other payments of a page; later pages are a keyset
 * query of their own.
 */
export async function listPaymentEvents(
  ctx: RequestContext,
  paymentId: string,
  page: { limit: number; afterId?: number },
): Promise<PaymentEvent[]> {
  if (page.afterId === undefined) return ctx.loaders.get(firstPaymentEventsByPaymentIdLoader).load({ paymentId, limit: page.limit });
  return readPaymentEventsAfter(ctx.em, paymentId, page.afterId, page.limit);
}
