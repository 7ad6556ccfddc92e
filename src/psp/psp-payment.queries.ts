import { scoped } from '../platform/auth/tenancy.js';
import type { SalesUnitContext } from '../platform/context.js';
import DataLoader from 'dataloader';
import { newestFirstOrder, olderThan, type CreatedKey } from '../platform/paging/keyset.js';
import { defineLoader } from '../platform/graph/loader-registry.js';
import type { OutboxEvent } from '../platform/events/outbox-event.js';
import { PspPayment, PspPaymentLog } from './psp-payment.entity.js';

/** What `pspPaymentChanges` yields per event; the payment is read when selected. */
export interface PspPaymentChangeSource {
  event: OutboxEvent;
}

/** The PSP's own payments of the request's sales unit: the one filter of every graph read. */
function own(ctx: SalesUnitContext): { pspId: string; msn: string } | undefined {
  return ctx.principal.kind === 'psp' ? { pspId: ctx.principal.pspId, ...scoped(ctx) } : undefined;
}

export async function findPspPaymentByTransactionId(ctx: SalesUnitContext, pspTransactionId: string): Promise<PspPayment | null> {
  const filter = own(ctx);
  return filter ? ctx.em.findOne(PspPayment, { ...filter, pspTransactionId }) : null;
}

/** `node(id:)`: the key is the payment's uuid; another PSP's (or another sales unit's) is null. */
export async function findPspPaymentNode(ctx: SalesUnitContext, id: string): Promise<PspPayment | undefined> {
  const filter = own(ctx);
  if (!filter || !/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  return (await ctx.em.findOne(PspPayment, { ...filter, id })) ?? undefined;
}

/** Newest first, by (createdAt, id) keyset. */
export async function listPspPayments(
  ctx: SalesUnitContext,
  page: { limit: number; after: CreatedKey | undefined },
): Promise<PspPayment[]> {
  const filter = own(ctx);
  if (!filter) return [];
  return ctx.em.find(PspPayment, { ...filter, ...olderThan(page.after) }, { orderBy: newestFirstOrder(), limit: page.limit });
}

/** The operation log of many payments in one statement. */
export const pspPaymentLogByPaymentIdLoader = defineLoader(
  'PspPaymentLogByPaymentIdLoader',
  (em) =>
    new DataLoader<string, PspPaymentLog[]>(async (ids) => {
      const rows = await em.find(PspPaymentLog, { pspPaymentId: { $in: [...ids] } }, { orderBy: { id: 'asc' } });
      return ids.map((id) => rows.filter((row) => row.pspPaymentId === id));
    }),
);

/** Payments by id in one statement (subscription notifications). */
export const pspPaymentByIdLoader = defineLoader(
  'PspPaymentByIdLoader',
  (em) =>
    new DataLoader<string, PspPayment | undefined>(async (ids) => {
      const rows = await em.find(PspPayment, { id: { $in: [...ids] } });
      return ids.map((id) => rows.find((row) => row.id === id));
    }),
);
