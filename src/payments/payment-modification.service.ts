import type { RequestContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import { outboxWrittenBySql } from '../platform/events/commit-wake.js';
import type { IdempotentRequest } from '../platform/idempotency/idempotency.service.js';
import { CommittedRefusal, runIdempotentReadWrite } from '../platform/idempotency/idempotent-read-write.js';
import type { PaymentEventName } from './payment-event.entity.js';
import { paymentEvent } from './payment-event.recorder.js';
import type { Money } from './payment.commands.js';
import type { Payment } from './payment.entity.js';
import { paymentForVerbOfRow } from './payment-for-verb.js';
import { paymentModification } from './payment-modification.statement.js';
import { assertTransition } from './payment.transitions.js';
import { toPaymentView, type PaymentView } from './payment.view.js';
import { scoped } from '../platform/auth/tenancy.js';

export type ModificationAmount = Money;

const DAY_MS = 24 * 60 * 60_000;
/** Capture and cancel within 180 days of the reservation, refund within 365 (FACTS §1.3). */
const CAPTURE_AND_CANCEL_PERIOD_MS = 180 * DAY_MS;
const REFUND_PERIOD_MS = 365 * DAY_MS;

/** What a verb did to the payment: the event it records (its name and amount). */
interface VerbChange {
  name: PaymentEventName;
  amount: number;
}

/**
 * Capture and refund after authorization; both change only the aggregate and record their event. Every
 * modification runs through `modify`: idempotency key, row lock, inline expiry, change, event, one transaction.
 */
export async function capturePayment(
  ctx: RequestContext,
  reference: string,
  amount: ModificationAmount,
  idempotencyKey: string,
): Promise<PaymentView> {
  const request: IdempotentRequest = {
    operation: 'payment.capture',
    key: idempotencyKey,
    request: { reference, amount },
    conflict: 'CAPTURE_IDEMPOTENCY_CONFLICT',
  };
  return modify(ctx, request, reference, ['CAPTURED'], (payment, now) => {
    if (payment.state === 'CREATED')
      throw new AppError('CAPTURE_BEFORE_RESERVATION', 'The payment has not been authorized by the user yet');
    if (payment.state === 'TERMINATED' || payment.cancelledAmount > 0)
      throw new AppError('CAPTURE_CANCELLED_PAYMENT', 'The payment has been cancelled');
    if (payment.state !== 'AUTHORIZED')
      throw new AppError('CAPTURE_INVALID_STATE', `A payment in state ${payment.state} cannot be captured`);
    if (withinPeriod(payment, now, CAPTURE_AND_CANCEL_PERIOD_MS) === false)
      throw new AppError('CAPTURE_PERIOD_EXPIRED', 'Captures are possible for 180 days after authorization');
    checkCurrency(payment, amount);
    const capturable = payment.authorizedAmount - payment.capturedAmount - payment.cancelledAmount;
    if (amount.value > capturable) {
      throw new AppError('CAPTURE_AMOUNT_TOO_HIGH', `At most ${capturable} can be captured; ${amount.value} was requested`, [
        { name: 'modificationAmount.value', reason: `Must be at most ${capturable}` },
      ]);
    }
    payment.capturedAmount += amount.value;
    return { name: 'CAPTURED', amount: amount.value };
  });
}

export async function refundPayment(
  ctx: RequestContext,
  reference: string,
  amount: ModificationAmount,
  idempotencyKey: string,
): Promise<PaymentView> {
  const request: IdempotentRequest = {
    operation: 'payment.refund',
    key: idempotencyKey,
    request: { reference, amount },
    conflict: 'REFUND_IDEMPOTENCY_CONFLICT',
  };
  return modify(ctx, request, reference, ['REFUNDED'], (payment, now) => {
    if (payment.state === 'CREATED') throw new AppError('REFUND_BEFORE_RESERVATION', 'The payment has not been authorized by the user yet');
    if (payment.state !== 'AUTHORIZED')
      throw new AppError('REFUND_INVALID_STATE', `A payment in state ${payment.state} cannot be refunded`);
    if (withinPeriod(payment, now, REFUND_PERIOD_MS) === false)
      throw new AppError('REFUND_PERIOD_EXPIRED', 'Refunds are possible for 365 days after authorization');
    checkCurrency(payment, amount);
    const refundable = payment.capturedAmount - payment.refundedAmount;
    if (amount.value > refundable) {
      throw new AppError('REFUND_NOT_ENOUGH_REFUNDABLE', `At most ${refundable} can be refunded; ${amount.value} was requested`, [
        { name: 'modificationAmount.value', reason: `Must be at most ${refundable}` },
      ]);
    }
    payment.refundedAmount += amount.value;
    return { name: 'REFUNDED', amount: amount.value };
  });
}

/**
 * Before authorization, cancel terminates the payment. After it, cancel releases whatever is not captured and
 * the state stays AUTHORIZED; after a full capture there is nothing left to release (FACTS §1.3).
 */
export async function cancelPayment(ctx: RequestContext, reference: string, idempotencyKey: string): Promise<PaymentView> {
  const request = { operation: 'payment.cancel', key: idempotencyKey, request: { reference } };
  return modify(ctx, request, reference, ['TERMINATED', 'CANCELLED'], (payment, now): VerbChange => {
    if (payment.state === 'CREATED') {
      assertTransition(payment.state, 'TERMINATED');
      payment.state = 'TERMINATED';
      payment.cancelledAmount = payment.amount;
      return { name: 'TERMINATED', amount: payment.amount };
    } else if (payment.state === 'AUTHORIZED') {
      if (payment.cancelledAmount > 0) throw new AppError('CANCEL_INVALID_STATE', 'The payment has already been cancelled');
      if (payment.capturedAmount >= payment.authorizedAmount)
        throw new AppError('CANCEL_CAPTURED_PAYMENT', 'The payment is fully captured; refund it instead');
      if (withinPeriod(payment, now, CAPTURE_AND_CANCEL_PERIOD_MS) === false)
        throw new AppError('CANCEL_PERIOD_EXPIRED', 'Cancellation is possible for 180 days after authorization');
      const released = payment.authorizedAmount - payment.capturedAmount;
      payment.cancelledAmount = released;
      return { name: 'CANCELLED', amount: released };
    } else if (payment.state === 'TERMINATED') {
      throw new AppError('CANCEL_INVALID_STATE', 'The payment has already been cancelled');
    } else {
      throw new AppError('CANCEL_NON_RESERVED_PAYMENT', `A payment in state ${payment.state} cannot be cancelled`);
    }
  });
}

/**
 * The steps every modification shares. A payment found past its expiry is expired first, exactly as the expiry
 * job would, and the change then sees an EXPIRED payment and refuses as it would for one the job had swept; the
 * expiry commits with that refusal, so the answer and the stored state agree.
 *
 * Two statements on either face (payment-modification.statement.ts), sent with the transaction's BEGIN and COMMIT:
 * the key's gate with the payment locked and the projectors' reads; the update, the events, their projectors' rows and
 * the key's record. `mayRecord` names the events the verb may record, so only their projectors' reads are made.
 */
async function modify(
  ctx: RequestContext,
  request: IdempotentRequest,
  reference: string,
  mayRecord: readonly PaymentEventName[],
  change: (payment: Payment, now: Date) => VerbChange,
): Promise<PaymentView> {
  const now = ctx.clock.now();
  const statement = paymentModification(scoped(ctx).msn, reference, mayRecord);
  // Keyed by the payment too: one key on two payments is two requests (idempotency.service.ts).
  return runIdempotentReadWrite(ctx, { ...request, target: reference }, statement.read, async (em, row: Record<string, unknown>) => {
    const taken = paymentForVerbOfRow(em, reference, row, now);
    const events = taken.expiry ? [taken.expiry] : [];
    let changed: VerbChange;
    try {
      changed = change(taken.payment, now);
    } catch (error) {
      if (!taken.expiry || !(error instanceof AppError)) throw error;
      const writes = await statement.writes(em, taken, events, row);
      outboxWrittenBySql(em);
      throw new CommittedRefusal(error, writes);
    }
    taken.payment.updatedAt = now;
    events.push(paymentEvent(taken.payment, changed.name, changed.amount, request.key, now));
    const writes = await statement.writes(em, taken, events, row);
    // The bus is woken at the commit (none if it rolls back), as a flush of these events would.
    outboxWrittenBySql(em);
    return { writes, value: toPaymentView(taken.payment, ctx.config) };
  });
}

function checkCurrency(payment: Payment, amount: ModificationAmount): void {
  if (amount.currency !== payment.currency) {
    throw new AppError('CURRENCY_MISMATCH', `The payment is in ${payment.currency}, not ${amount.currency}`, [
      { name: 'modificationAmount.currency', reason: `Must be ${payment.currency}` },
    ]);
  }
}

function withinPeriod(payment: Payment, now: Date, periodMs: number): boolean | undefined {
  if (!payment.authorizedAt) return undefined;
  return now.getTime() - payment.authorizedAt.getTime() <= periodMs;
}
