import { LockMode } from '@mikro-orm/core';
import type { SalesUnitContext, Services } from '../platform/context.js';
import { earliestDue } from '../platform/jobs/due-work.js';
import { forkEm, type Em } from '../platform/db/orm.js';
import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import { PspBatchRun, PspPayment, PspStatusUpdate } from './psp-payment.entity.js';
import { recordPspChange } from './psp-payment.events.js';
import type { PspTransactionUpdate, PspUpdateStatus } from './psp-payment.schemas.js';
import { pspOf } from './psp-payment.service.js';
import { canMovePspPayment, movePspPayment } from './psp-payment.transitions.js';

/** The public enum a status of either vocabulary means (FACTS §0: REJECT is a failed reserve). */
export function canonicalStatus(status: PspUpdateStatus): {
  operation: 'RESERVED' | 'CAPTURED' | 'CANCELLED' | 'REFUNDED';
  rejects: boolean;
} {
  switch (status) {
    case 'RESERVE':
      return { operation: 'RESERVED', rejects: false };
    case 'CAPTURE':
      return { operation: 'CAPTURED', rejects: false };
    case 'REJECT':
      return { operation: 'RESERVED', rejects: true };
    default:
      return { operation: status, rejects: false };
  }
}

/**
 * Queues a batch of status updates (FACTS §6): every transaction must be one of the PSP's payments of the sales
 * unit, or the whole batch is refused (400 with one entry per invalid transaction). A valid batch changes nothing
 * now; the nightly batch applies it.
 */
export async function queueStatusUpdates(ctx: SalesUnitContext, updates: readonly PspTransactionUpdate[]): Promise<number> {
  const psp = pspOf(ctx);
  return ctx.em.transactional(async (em) => {
    const now = ctx.clock.now();
    const ids = [...new Set(updates.map((u) => u.pspTransactionId))];
    const payments = await em.find(PspPayment, { pspId: psp.pspId, msn: ctx.scope.msn, pspTransactionId: { $in: ids } });
    const byId = new Map(payments.map((p) => [p.pspTransactionId, p]));
    const details: ErrorDetail[] = [];
    updates.forEach((u, i) => {
      if (!byId.has(u.pspTransactionId))
        details.push({ name: `transactions[${i}].pspTransactionId`, reason: `Unknown PSP transaction ${u.pspTransactionId}` });
    });
    if (details.length > 0) throw new AppError('PSP_INVALID_TRANSACTION', details.map((d) => d.reason).join('; '), details);
    for (const u of updates) {
      em.create(PspStatusUpdate, {
        pspId: psp.pspId,
        pspPaymentId: byId.get(u.pspTransactionId)!.id,
        status: u.status,
        operationStatus: u.operationStatus ?? 'SUCCESS',
        amount: u.amount,
        currency: u.currency ?? 'NOK',
        paymentText: u.paymentText ?? null,
        receivedAt: now,
        appliedAt: null,
        outcome: null,
      });
    }
    return updates.length;
  });
}

/** The nightly batch runs once the clock passes this hour (UTC) of a day, for updates received before then. */
export const NIGHTLY_BATCH_HOUR_UTC = 2;

/** The period (UTC date) whose batch is due at `now`, and the cut-off its updates were received before. */
export function duePeriod(now: Date): { period: string; cutoff: Date } {
  const cutoff = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), NIGHTLY_BATCH_HOUR_UTC));
  if (cutoff.getTime() > now.getTime()) cutoff.setUTCDate(cutoff.getUTCDate() - 1);
  return { period: cutoff.toISOString().slice(0, 10), cutoff };
}

/**
 * When the unit's nightly batch next has updates to apply: the first cut-off after the earliest update still queued
 * (the test clock's advance stops there).
 */
export async function nextNightlyBatch(services: Services, msn: string): Promise<Date | null> {
  const received = await earliestDue(
    services,
    `select min(u.received_at) as due from psp_status_update u join psp_payment p on p.id = u.psp_payment_id
     where u.applied_at is null and p.msn = ?`,
    [msn],
  );
  if (!received) return null;
  const { cutoff } = duePeriod(received);
  return new Date(cutoff.getTime() + 86_400_000);
}

/** Per process (per app): for each PSP sales unit, the last period whose batch is known to be finished. */
const settledPeriods = new WeakMap<Services, Map<string, string>>();

/**
 * The nightly batch job: for each PSP sales unit, once per period of that unit's time (its test clock in the test
 * environment), applies the queued updates of its payments received before the cut-off in the order they arrived.
 * A run is keyed by unit and period and made on one instance (its row, claimed with SKIP LOCKED). Each update is
 * applied once (its `appliedAt`) with the money rules of ePayment; one that would break them is recorded as failed,
 * not applied.
 */
export async function runNightlyBatch(services: Services): Promise<number | undefined> {
  const units = await forkEm(services.orm).execute<{ msn: string }[]>(`select msn from psp_sales_unit order by msn`);
  let applied: number | undefined;
  for (const { msn } of units) {
    const count = await runUnitBatch(services, msn);
    if (count !== undefined) applied = (applied ?? 0) + count;
  }
  return applied;
}

async function runUnitBatch(services: Services, msn: string): Promise<number | undefined> {
  const now = services.testClocks.of(msn).now();
  const { period, cutoff } = duePeriod(now);
  const settled = settledPeriods.get(services) ?? new Map<string, string>();
  settledPeriods.set(services, settled);
  // The scheduler ticks often; once this process saw the unit's batch of the period finished, it asks no more.
  if (settled.get(msn) === period) return undefined;
  const em = forkEm(services.orm);
  await em.execute(
    `insert into psp_batch_run (msn, period, started_at, applied_count) values (?, ?, ?, 0) on conflict (msn, period) do nothing`,
    [msn, period, now],
  );
  const applied = await forkEm(services.orm).transactional(async (tx) => {
    const run = await tx.findOne(PspBatchRun, { msn, period, finishedAt: null }, { lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE });
    if (!run) {
      // Finished (by this or another instance), or running on another instance right now: then it is not settled.
      const finished = await tx.count(PspBatchRun, { msn, period, finishedAt: { $ne: null } });
      if (finished > 0) settled.set(msn, period);
      return undefined;
    }
    const ids = await tx.execute<{ id: string | number }[]>(
      `select u.id from psp_status_update u join psp_payment p on p.id = u.psp_payment_id
       where u.applied_at is null and u.received_at < ? and p.msn = ?`,
      [cutoff, msn],
    );
    const pending =
      ids.length === 0 ? [] : await tx.find(PspStatusUpdate, { id: { $in: ids.map((row) => Number(row.id)) } }, { orderBy: { id: 'asc' } });
    for (const update of pending) await applyUpdate(tx, update, now);
    run.finishedAt = now;
    run.appliedCount = pending.length;
    return pending.length;
  });
  // Only once committed is the period settled.
  if (applied !== undefined) settled.set(msn, period);
  return applied;
}

/** Applies one update under the payment's row lock; the CHECK constraints back the same limits. */
export async function applyUpdate(em: Em, update: PspStatusUpdate, now: Date): Promise<void> {
  const payment = await em.findOneOrFail(PspPayment, { id: update.pspPaymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const { operation, rejects } = canonicalStatus(update.status as PspUpdateStatus);
  const refusal = rejects || update.operationStatus === 'FAILED' ? 'reported as failed' : moneyRefusal(payment, operation, update.amount);
  update.appliedAt = now;
  update.outcome = refusal ? `FAILED: ${refusal}` : 'APPLIED';
  if (!refusal) {
    switch (operation) {
      case 'RESERVED':
        // A reserve of a RESERVED payment sets its amount again; an ACCEPTED one moves by the table.
        if (payment.state !== 'RESERVED') movePspPayment(payment, 'RESERVED');
        payment.reservedAmount = update.amount;
        break;
      case 'CAPTURED':
        payment.capturedAmount += update.amount;
        break;
      case 'REFUNDED':
        payment.refundedAmount += update.amount;
        break;
      case 'CANCELLED':
        payment.cancelledAmount = payment.reservedAmount - payment.capturedAmount;
        break;
    }
  } else if (operation === 'RESERVED' && canMovePspPayment(payment.state, 'FAILED')) {
    // A failed reserve of an accepted payment (a token payment, or REJECT) ends it.
    movePspPayment(payment, 'FAILED');
  }
  payment.updatedAt = now;
  const amount = operation === 'CANCELLED' && !refusal ? payment.cancelledAmount : update.amount;
  recordPspChange(em, payment, now, {
    name: refusal ? 'UPDATE_FAILED' : operation,
    log: { operation, amount, paymentText: update.paymentText ?? null, success: !refusal },
  });
}

/** Why an operation of `amount` may not be applied (captured <= reserved, refunded <= captured), or undefined. */
export function moneyRefusal(
  payment: Pick<PspPayment, 'state' | 'amount' | 'reservedAmount' | 'capturedAmount' | 'cancelledAmount' | 'refundedAmount'>,
  operation: 'RESERVED' | 'CAPTURED' | 'CANCELLED' | 'REFUNDED',
  amount: number,
): string | undefined {
  const reserved = payment.state === 'RESERVED' || payment.reservedAmount > 0;
  switch (operation) {
    case 'RESERVED':
      if (payment.state !== 'RESERVED' && !canMovePspPayment(payment.state, 'RESERVED')) return `cannot reserve a ${payment.state} payment`;
      if (amount > payment.amount) return 'reserve amount exceeds the payment amount';
      if (amount < payment.capturedAmount + payment.cancelledAmount) return 'reserve amount is below what is captured';
      return undefined;
    case 'CAPTURED':
      if (!reserved) return 'cannot capture before reservation';
      if (payment.cancelledAmount > 0) return 'cannot capture a cancelled payment';
      if (payment.capturedAmount + amount > payment.reservedAmount) return 'capture amount too high';
      return undefined;
    case 'REFUNDED':
      if (payment.refundedAmount + amount > payment.capturedAmount) return 'not enough refundable';
      return undefined;
    case 'CANCELLED':
      if (!reserved) return 'cannot cancel a non-reserved payment';
      if (payment.cancelledAmount > 0) return 'already cancelled';
      if (payment.capturedAmount >= payment.reservedAmount) return 'cannot cancel a captured payment';
      return undefined;
  }
}
