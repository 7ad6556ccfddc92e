import { LockMode } from '@mikro-orm/core';
import { scoped } from '../platform/auth/tenancy.js';
import type { SalesUnitContext } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import { awaitsUser, expiry } from '../payments/payment-expiry.js';
import { runPaymentVerb, type VerbDecision } from '../payments/payment-for-verb.js';
import type { Payment } from '../payments/payment.entity.js';
import { CheckoutSession } from './checkout-session.entity.js';
import { expireSessionIfOverdue } from './checkout-session.expiry.js';
import { moveSession, recordSessionEvent, SESSION_UPDATED_EVENT } from './checkout-session.recorder.js';
import { sessionAmountTooSmall, sessionNotFound } from './checkout-session.service.js';
import { canMoveSession, SESSION_UPDATABLE_STATES } from './checkout-session.transitions.js';
import type { CheckoutSessionUpdate } from './checkout-session-update.schemas.js';
import { toSessionInfo, type SessionInfo } from './checkout-session.view.js';

/**
 * The merchant's two changes to an open session that no public definition we hold describes, as the WooCommerce
 * plugin calls them: update (the order changed while the buyer is on the page) and expire (the order was
 * cancelled). Each runs under the session's row lock, with its outbox event in the same transaction; the buyer's
 * page follows both live through the session's event stream.
 */
export interface SessionChange {
  session: CheckoutSession;
  info: SessionInfo;
}

async function lockSession(em: Em, msn: string, reference: string): Promise<CheckoutSession> {
  const session = await em.findOne(CheckoutSession, { msn, reference }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!session) throw sessionNotFound(reference);
  return session;
}

function notModifiable(session: CheckoutSession, verb: string): AppError {
  return new AppError('CHECKOUT_SESSION_NOT_MODIFIABLE', `The session is ${session.state} and can no longer be ${verb}`, [
    { name: 'sessionState', reason: session.state },
  ]);
}

/**
 * The amounts of an update in another currency than the session's are refused: the session keeps its currency. A new
 * amount must be one its payment could be created with, as when the session was opened.
 */
function amountProblems(session: CheckoutSession, update: CheckoutSessionUpdate): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (update.amount && update.amount.currency !== session.currency) {
    details.push({ name: 'transaction.amount.currency', reason: `Must be the session's currency ${session.currency}` });
  }
  const tooSmall = update.amount && sessionAmountTooSmall(update.amount);
  if (tooSmall) details.push(tooSmall);
  update.logisticOptions?.forEach((option, i) => {
    if (option.amount && option.amount.currency !== session.currency) {
      details.push({ name: `logisticOptions[${i}].amount.currency`, reason: `Must be the session's currency ${session.currency}` });
    }
  });
  return details;
}

/**
 * `PATCH /checkout/v3/session/{reference}`: while the buyer has not paid, what is sent replaces the session's amount,
 * description, order summary and shipping options (also those already offered for the buyer's address); 409 once
 * the buyer paid or the session ended, 404 for another sales unit's session.
 */
export async function updateCheckoutSession(
  ctx: SalesUnitContext,
  reference: string,
  update: CheckoutSessionUpdate,
): Promise<SessionChange> {
  const msn = scoped(ctx).msn;
  return ctx.em.transactional(async (em) => {
    const now = ctx.clock.now();
    const session = await lockSession(em, msn, reference);
    if (expireSessionIfOverdue(em, session, undefined, now)) {
      await em.flush();
      throw notModifiable(session, 'changed');
    }
    if (!SESSION_UPDATABLE_STATES.includes(session.state)) throw notModifiable(session, 'changed');
    const problems = amountProblems(session, update);
    if (problems.length > 0) throw AppError.validation(problems);
    const transaction = { ...session.request.transaction };
    if (update.amount) {
      session.amount = update.amount.value;
      transaction.amount = update.amount;
    }
    if (update.paymentDescription !== undefined) {
      session.paymentDescription = update.paymentDescription;
      transaction.paymentDescription = update.paymentDescription;
    }
    if (update.orderSummary) transaction.orderSummary = update.orderSummary;
    const request = { ...session.request, transaction };
    if (update.logisticOptions) {
      request.logistics = { ...session.request.logistics, fixedOptions: update.logisticOptions };
      if (session.offeredShipping) session.offeredShipping = { source: 'fixed', options: update.logisticOptions };
    }
    session.request = request;
    session.updatedAt = now;
    recordSessionEvent(em, session, undefined, now, SESSION_UPDATED_EVENT);
    await em.flush();
    return { session, info: toSessionInfo(session, undefined, now) };
  });
}

/**
 * `POST /checkout/v3/session/{reference}/expire`: an open session ends SessionExpired now, with its event and the
 * merchant's callback, and a payment still waiting for the buyer expires with it. Expiring an expired session
 * changes nothing and answers the same; a paid or cancelled one is 409.
 */
export async function expireCheckoutSession(ctx: SalesUnitContext, reference: string): Promise<SessionChange> {
  const msn = scoped(ctx).msn;
  return ctx.em.transactional(async (em) => {
    const now = ctx.clock.now();
    const session = await lockSession(em, msn, reference);
    // The session's steps, and its payment's when it has one: expired with it if it still waits for the buyer.
    const expire = (found: Payment | undefined): VerbDecision<Payment | undefined> => {
      if (!expireSessionIfOverdue(em, session, found, now) && session.state !== 'SessionExpired') {
        if (!canMoveSession(session.state, 'SessionExpired')) throw notModifiable(session, 'expired');
        // Approved elsewhere (force approve) and not yet followed by the session: it is paid, not expirable.
        if (found?.state === 'AUTHORIZED') throw notModifiable(session, 'expired');
        const expired = found && awaitsUser(found, now) ? [expiry(found, now)] : [];
        moveSession(em, session, 'SessionExpired', found, now);
        return { value: found, events: expired };
      }
      return { value: found };
    };
    const payment = session.paymentId
      ? await runPaymentVerb(
          { em, clock: ctx.clock },
          { payment: { msn, reference }, time: now, mayRecord: [], decide: (taken) => expire(taken?.payment) },
        )
      : (expire(undefined) as { value: undefined }).value;
    await em.flush();
    return { session, info: toSessionInfo(session, payment, now) };
  });
}
