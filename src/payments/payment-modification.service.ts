import type { SalesUnitContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ErrorCode } from '../platform/errors/catalogue.js';
import { keyConflict, type IdempotentRequest } from '../platform/idempotency/idempotency-gate.js';
import { keyRecordsKeptSince } from '../platform/idempotency/idempotency-retention.js';
import type { PaymentEventName } from './payment-event.entity.js';
import type { PaymentEventPayload } from './payment-event.types.js';
import { paymentEvent } from './payment-event.recorder.js';
import type { Money } from './payment.commands.js';
import type { Payment } from './payment.entity.js';
import { paymentNotFound, runPaymentVerb } from './payment-for-verb.js';
import { assertTransition } from './payment.transitions.js';
import { toPaymentView, type PaymentView } from './payment.view.js';
import { scoped } from '../platform/auth/tenancy.js';
import { refuseTriggeredRefund } from './test-failure-triggers.js';
import { paymentAllowances } from './payment-allowances.js';

/**
 * An amount to capture or refund, and the field the caller named it by (REST `modificationAmount`, the graph
 * `amount`): a refusal of the amount names the caller's field.
 */
export interface ModificationAmount {
  money: Money;
  field: 'modificationAmount' | 'amount';
}

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
  ctx: SalesUnitContext,
  reference: string,
  amount: ModificationAmount,
  idempotencyKey: string,
): Promise<PaymentView> {
  const request = amountRequest('payment.capture', 'CAPTURE_IDEMPOTENCY_CONFLICT', reference, amount, idempotencyKey);
  return modify(ctx, request, reference, ['CAPTURED'], sameAmount(amount), (payment, now) => {
    if (payment.state === 'CREATED')
      throw new AppError('CAPTURE_BEFORE_RESERVATION', 'The payment has not been authorized by the user yet');
    if (payment.state === 'TERMINATED' || payment.cancelledAmount > 0)
      throw new AppError('CAPTURE_CANCELLED_PAYMENT', 'The payment has been cancelled');
    if (payment.state !== 'AUTHORIZED')
      throw new AppError('CAPTURE_INVALID_STATE', `A payment in state ${payment.state} cannot be captured`);
    if (withinPeriod(payment, now, CAPTURE_AND_CANCEL_PERIOD_MS) === false)
      throw new AppError('CAPTURE_PERIOD_EXPIRED', 'Captures are possible for 180 days after authorization');
    checkCurrency(payment, amount);
    const value = amountWithin(amount, paymentAllowances(payment).capturable, 'CAPTURE_AMOUNT_TOO_HIGH', 'captured');
    payment.capturedAmount += value;
    return { name: 'CAPTURED', amount: value };
  });
}

export async function refundPayment(
  ctx: SalesUnitContext,
  reference: string,
  amount: ModificationAmount,
  idempotencyKey: string,
): Promise<PaymentView> {
  const request = amountRequest('payment.refund', 'REFUND_IDEMPOTENCY_CONFLICT', reference, amount, idempotencyKey);
  return modify(ctx, request, reference, ['REFUNDED'], sameAmount(amount), (payment, now) => {
    if (payment.state === 'CREATED') throw new AppError('REFUND_BEFORE_RESERVATION', 'The payment has not been authorized by the user yet');
    if (payment.state !== 'AUTHORIZED')
      throw new AppError('REFUND_INVALID_STATE', `A payment in state ${payment.state} cannot be refunded`);
    if (withinPeriod(payment, now, REFUND_PERIOD_MS) === false)
      throw new AppError('REFUND_PERIOD_EXPIRED', 'Refunds are possible for 365 days after authorization');
    checkCurrency(payment, amount);
    const value = amountWithin(amount, paymentAllowances(payment).refundable, 'REFUND_NOT_ENOUGH_REFUNDABLE', 'refunded');
    refuseTriggeredRefund(ctx.config.env, amount);
    payment.refundedAmount += value;
    return { name: 'REFUNDED', amount: value };
  });
}

/**
 * Before authorization, cancel terminates the payment. After it, cancel releases whatever is not captured and
 * the state stays AUTHORIZED; after a full capture there is nothing left to release (FACTS §1.3).
 */
export async function cancelPayment(ctx: SalesUnitContext, reference: string, idempotencyKey: string): Promise<PaymentView> {
  const request = { operation: 'payment.cancel', key: idempotencyKey, request: { reference } };
  return modify(
    ctx,
    request,
    reference,
    ['TERMINATED', 'CANCELLED'],
    () => true,
    (payment, now): VerbChange => {
      const allowed = paymentAllowances(payment);
      if (allowed.cancel === 'TERMINATE') {
        assertTransition(payment.state, 'TERMINATED');
        payment.state = 'TERMINATED';
        payment.cancelledAmount = payment.amount;
        return { name: 'TERMINATED', amount: payment.amount };
      }
      if (allowed.cancel === 'RELEASE') {
        if (withinPeriod(payment, now, CAPTURE_AND_CANCEL_PERIOD_MS) === false)
          throw new AppError('CANCEL_PERIOD_EXPIRED', 'Cancellation is possible for 180 days after authorization');
        payment.cancelledAmount = allowed.capturable;
        return { name: 'CANCELLED', amount: allowed.capturable };
      }
      if (payment.state === 'AUTHORIZED' && payment.cancelledAmount === 0)
        throw new AppError('CANCEL_CAPTURED_PAYMENT', 'The payment is fully captured; refund it instead');
      if (payment.state === 'AUTHORIZED' || payment.state === 'TERMINATED')
        throw new AppError('CANCEL_INVALID_STATE', 'The payment has already been cancelled');
      throw new AppError('CANCEL_NON_RESERVED_PAYMENT', `A payment in state ${payment.state} cannot be cancelled`);
    },
  );
}

/**
 * The steps every modification shares, through the write runner (`runPaymentVerb`): the key's gate with the payment
 * locked and the projectors' reads, sent with the BEGIN; the verb's rules; the update, the events, their projectors'
 * rows and the key's record, sent with the COMMIT. A payment found past its expiry is expired first, and the change
 * then sees an EXPIRED payment and refuses as it would for one the job had swept; the expiry commits with that
 * refusal, so the answer and the stored state agree. `mayRecord` names the events the verb may record, so only their
 * projectors' reads are made.
 */
async function modify(
  ctx: SalesUnitContext,
  request: IdempotentRequest,
  reference: string,
  mayRecord: readonly PaymentEventName[],
  sameRequest: (logged: PaymentEventPayload) => boolean,
  change: (payment: Payment, now: Date) => VerbChange,
): Promise<PaymentView> {
  const time = ctx.clock.now();
  return runPaymentVerb(ctx, {
    // Keyed by the payment too: one key on two payments is two requests (idempotency-gate.ts).
    key: { ...request, target: reference },
    keyInLog: { names: mayRecord, createdBefore: keyRecordsKeptSince(ctx.config, time) },
    payment: { msn: scoped(ctx).msn, reference },
    time,
    mayRecord,
    decide(taken) {
      if (!taken) throw paymentNotFound(reference);
      const { payment, now, keyEvent } = taken;
      // The key's record is gone (pruned after its window) but its event is in the payment's log: the modification
      // was made, so it is answered from the payment as it stands, or refused as another request under the key.
      if (keyEvent) {
        if (!sameRequest(keyEvent)) throw keyConflict(request.conflict ?? 'IDEMPOTENCY_CONFLICT');
        return { value: toPaymentView(payment, ctx.config) };
      }
      const changed = change(payment, now);
      payment.updatedAt = now;
      return { value: toPaymentView(payment, ctx.config), events: [paymentEvent(payment, changed.name, changed.amount, request.key, now)] };
    },
  });
}

/** A capture's or refund's request under its key: the payment and the amount, so the same key with another amount conflicts. */
function amountRequest(
  operation: string,
  conflict: ErrorCode,
  reference: string,
  amount: ModificationAmount,
  key: string,
): IdempotentRequest {
  return { operation, key, request: { reference, amount: amount.money }, conflict };
}

/** The amount's value when it is at most what is `left` to move; else the refusal naming the caller's amount field. */
function amountWithin(amount: ModificationAmount, left: number, code: ErrorCode, moved: 'captured' | 'refunded'): number {
  const { value } = amount.money;
  if (value > left) {
    throw new AppError(code, `At most ${left} can be ${moved}; ${value} was requested`, [
      { name: `${amount.field}.value`, reason: `Must be at most ${left}` },
    ]);
  }
  return value;
}

/** A capture or refund under a key already in the log is the same request when it moved the same amount. */
const sameAmount =
  (amount: ModificationAmount) =>
  (logged: PaymentEventPayload): boolean =>
    logged.amount.value === amount.money.value && logged.amount.currency === amount.money.currency;

function checkCurrency(payment: Payment, amount: ModificationAmount): void {
  if (amount.money.currency !== payment.currency) {
    throw new AppError('CURRENCY_MISMATCH', `The payment is in ${payment.currency}, not ${amount.money.currency}`, [
      { name: `${amount.field}.currency`, reason: `Must be ${payment.currency}` },
    ]);
  }
}

function withinPeriod(payment: Payment, now: Date, periodMs: number): boolean | undefined {
  if (!payment.authorizedAt) return undefined;
  return now.getTime() - payment.authorizedAt.getTime() <= periodMs;
}
