import type { RequestContext } from '../context.js';
import type { PaymentEvent } from './payment-event.entity.js';
import { readPaymentEvent } from './payment.read-model.js';

export async function findPaymentEventById(ctx: RequestContext, id: string): Promise<PaymentEvent | undefined> {
  if (!/^\d{1,15}$/.test(id)) return undefined;
  return readPaymentEvent(ctx.em, ctx.msn, Number(id));
}
