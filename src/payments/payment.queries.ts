import type { SalesUnitContext } from '../platform/context.js';
import { readPaymentById, readPayments, type PaymentPageQuery } from './payment.read-model.js';
import { toPaymentViewAt, type PaymentView } from './payment.view.js';
import { scoped } from '../platform/auth/tenancy.js';

/** The caller's payments, newest first, by keyset (never OFFSET). */
export async function listPayments(ctx: SalesUnitContext, query: Omit<PaymentPageQuery, 'msn' | 'now'>): Promise<PaymentView[]> {
  const now = ctx.clock.now();
  const rows = await readPayments(ctx.em, { ...query, msn: scoped(ctx).msn, now });
  return rows.map((row) => toPaymentViewAt(row, ctx.config, now));
}

export async function findPaymentById(ctx: SalesUnitContext, id: string): Promise<PaymentView | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const payment = await readPaymentById(ctx.em, scoped(ctx).msn, id);
  return payment ? toPaymentViewAt(payment, ctx.config, ctx.clock.now()) : undefined;
}
