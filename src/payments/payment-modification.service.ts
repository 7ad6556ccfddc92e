import type { RequestContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { Em } from '../platform/db/orm.js';
import { CommittedRefusal, runIdempotent, type IdempotentRequest } from '../platform/idempotency/idempotency.service.js';
import { recordPaymentEvent } from './payment-event.recorder.js';
import type { Money } from './payment.commands.js';
import type { Payment } from './payment.entity.js';
import { lockOwnPaymentForVerb } from './payment-for-verb.js';
import { assertTransition } from './payment.transitions.js';
import { toPaymentView, type PaymentView } from './payment.view.js';
import { scoped } from '../platform/auth/tenancy.js';

export type ModificationAmount = Money;

const DAY_MS = 24 * 60 * 60_000;
/** Capture and cancel within 180 days of the reservation, refund within 365 (FACTS §1.3). */
const CAPTURE_AND_CANCEL_PERIOD_MS = 180 * DAY_MS;
const REFUND_PERIOD_MS = 365 * DAY_MS;

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
  return modify(ctx, request, reference, (em, payment, now) => {
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
    recordPaymentEvent(em, payment, 'CAPTURED', amount.value, idempotencyKey, now);
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
  return modify(ctx, request, reference, (em, payment, now) => {
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
    recordPaymentEvent(em, payment, 'REFUNDED', amount.value, idempotencyKey, now);
  });
}

/**
 * Before authorization, cancel terminates the payment. After it, cancel releases whatever is not captured and
 * the state stays AUTHORIZED; after a full capture there is nothing left to release (FACTS §1.3).
 */
export async function cancelPayment(ctx: RequestContext, reference: string, idempotencyKey: string): Promise<PaymentView> {
  const request = { operation: 'payment.cancel', key: idempotencyKey, request: { reference } };
  return modify(ctx, request, reference, (em, payment, now) => {
    if (payment.state === 'CREATED') {
      assertTransition(payment.state, 'TERMINATED');
      payment.state = 'TERMINATED';
      payment.cancelledAmount = payment.amount;
      recordPaymentEvent(em, payment, 'TERMINATED', payment.amount, idempotencyKey, now);
    } else if (payment.state === 'AUTHORIZED') {
      if (payment.cancelledAmount > 0) throw new AppError('CANCEL_INVALID_STATE', 'The payment has already been cancelled');
      if (payment.capturedAmount >= payment.authorizedAmount)
        throw new AppError('CANCEL_CAPTURED_PAYMENT', 'The payment is fully captured; refund it instead');
      if (withinPeriod(payment, now, CAPTURE_AND_CANCEL_PERIOD_MS) === false)
        throw new AppError('CANCEL_PERIOD_EXPIRED', 'Cancellation is possible for 180 days after authorization');
      const released = payment.authorizedAmount - payment.capturedAmount;
      payment.cancelledAmount = released;
      recordPaymentEvent(em, payment, 'CANCELLED', released, idempotencyKey, now);
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
 */
async function modify(
  ctx: RequestContext,
  request: IdempotentRequest,
  reference: string,
  change: (em: Em, payment: Payment, now: Date) => void,
): Promise<PaymentView> {
  // Keyed by the payment too: one key on two payments is two requests (idempotency.service.ts).
  return runIdempotent(ctx, { ...request, target: reference }, async (em) => {
    const now = ctx.clock.now();
    const { payment, expiredNow } = await lockOwnPaymentForVerb(em, scoped(ctx).msn, reference, now);
    try {
      change(em, payment, now);
    } catch (error) {
      if (expiredNow && error instanceof AppError) throw new CommittedRefusal(error);
      throw error;
    }
    payment.updatedAt = now;
    await em.flush();
    return toPaymentView(payment, ctx.config);
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
