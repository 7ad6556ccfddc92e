import { LockMode } from '@mikro-orm/core';
import type { Services } from '../platform/context.js';
import { drainDueWork, earliestDue } from '../platform/jobs/due-work.js';
import { timelineFilter, timelineSql } from '../platform/test-clocks.js';
import { CheckoutSession } from './checkout-session.entity.js';
import { expireSessionIfOverdue } from './checkout-session.expiry.js';
import { readSessionPayments } from './checkout-session.read-model.js';
import { moveSession } from './checkout-session.recorder.js';
import { paymentDetailsState } from './checkout-session.view.js';

/**
 * Moves sessions nobody completed within the hour to SessionExpired, with their event and the merchant's callback;
 * each expires once however many instances run this.
 */
export function expireDueSessions(services: Services): Promise<number> {
  return drainDueWork(services, async (em, timeline, limit) => {
    const now = timeline.now;
    const due = await em.find(
      CheckoutSession,
      { state: { $in: ['SessionCreated', 'PaymentInitiated'] }, expiresAt: { $lte: now }, ...timelineFilter(timeline) },
      { orderBy: { expiresAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
    for (const session of due) {
      const [payment] = await readSessionPayments(em, session.msn, session.paymentId ? [session.paymentId] : []);
      expireSessionIfOverdue(em, session, payment, now);
    }
    await em.flush();
    return due.length;
  });
}

/**
 * A PaymentInitiated session follows its payment when the payment ended elsewhere (approved with force approve,
 * cancelled, aborted or expired through ePayment): AUTHORIZED makes it PaymentSuccessful, any other end
 * PaymentTerminated, with the event and callback as on the page.
 */
export function settleSessionsFromPayments(services: Services): Promise<number> {
  return drainDueWork(services, async (em, timeline, limit) => {
    const now = timeline.now;
    const units = timelineSql(timeline, 's.msn');
    const rows = await em.execute<{ id: string }[]>(
      `select s.id from checkout_session s join payment p on p.id = s.payment_id
       where s.state = 'PaymentInitiated' and (p.state <> 'CREATED' or p.expires_at <= ?) and ${units.sql}
       order by s.id limit ? for update of s skip locked`,
      [now, ...units.params, limit],
    );
    let settled = 0;
    for (const { id } of rows) {
      const session = await em.findOneOrFail(CheckoutSession, { id });
      const [payment] = await readSessionPayments(em, session.msn, [session.paymentId!]);
      if (!payment) continue;
      moveSession(
        em,
        session,
        paymentDetailsState(payment, now) === 'AUTHORIZED' ? 'PaymentSuccessful' : 'PaymentTerminated',
        payment,
        now,
      );
      settled++;
    }
    await em.flush();
    // Only sessions that moved count: one left in place would be claimed again by the next batch.
    return settled;
  });
}

/** When the unit's first open session expires (the test clock's advance stops there). */
export function nextSessionExpiry(services: Services, msn: string): Promise<Date | null> {
  return earliestDue(
    services,
    `select min(expires_at) as due from checkout_session where msn = ? and state in ('SessionCreated', 'PaymentInitiated')`,
    [msn],
  );
}

/** When the unit's first PaymentInitiated session has a payment to follow: at once when it ended, else at its expiry. */
export function nextSessionToSettle(services: Services, msn: string): Promise<Date | null> {
  return earliestDue(
    services,
    `select min(case when p.state = 'CREATED' then p.expires_at else ?::timestamptz end) as due
     from checkout_session s join payment p on p.id = s.payment_id where s.msn = ? and s.state = 'PaymentInitiated'`,
    [new Date(0), msn],
  );
}
