import { LockMode } from '@mikro-orm/core';
import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { timelineFilter, timelineSql, type Timeline } from '../platform/test-clocks.js';
import { CheckoutSession } from './checkout-session.entity.js';
import { expireSessionIfOverdue } from './checkout-session.expiry.js';
import { readSessionPayments } from './checkout-session.read-model.js';
import { moveSession } from './checkout-session.recorder.js';
import { paymentDetailsState } from './checkout-session.view.js';

const BATCH_SIZE = 100;

/**
 * Moves sessions nobody completed within the hour to SessionExpired, with their event and the merchant's callback.
 * Rows are claimed with SKIP LOCKED, so any number of instances can run this at once and each expires once.
 */
export async function expireDueSessions(services: Services): Promise<number> {
  let total = 0;
  for (const timeline of services.testClocks.timelines()) total += await expireOnTimeline(services, timeline);
  return total;
}

/** The sessions of the timeline's sales units, by their time. */
async function expireOnTimeline(services: Services, timeline: Timeline): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await forkEm(services.orm).transactional(async (em) => {
      const now = timeline.now;
      const due = await em.find(
        CheckoutSession,
        { state: { $in: ['SessionCreated', 'PaymentInitiated'] }, expiresAt: { $lte: now }, ...timelineFilter(timeline) },
        { orderBy: { expiresAt: 'asc' }, limit: BATCH_SIZE, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
      );
      for (const session of due) {
        const [payment] = await readSessionPayments(em, session.msn, session.paymentId ? [session.paymentId] : []);
        expireSessionIfOverdue(em, session, payment, now);
      }
      await em.flush();
      return due.length;
    });
    total += expired;
    if (expired < BATCH_SIZE) return total;
  }
}

/**
 * A PaymentInitiated session follows its payment when the payment ended elsewhere (approved with force approve,
 * cancelled, aborted or expired through ePayment): AUTHORIZED makes it PaymentSuccessful, any other end
 * PaymentTerminated, with the event and callback as on the page.
 */
export async function settleSessionsFromPayments(services: Services): Promise<number> {
  let total = 0;
  for (const timeline of services.testClocks.timelines()) total += await settleOnTimeline(services, timeline);
  return total;
}

async function settleOnTimeline(services: Services, timeline: Timeline): Promise<number> {
  return forkEm(services.orm).transactional(async (em) => {
    const now = timeline.now;
    const units = timelineSql(timeline, 's.msn');
    const rows = await em.execute<{ id: string }[]>(
      `select s.id from checkout_session s join payment p on p.id = s.payment_id
       where s.state = 'PaymentInitiated' and (p.state <> 'CREATED' or p.expires_at <= ?) and ${units.sql}
       order by s.id limit ? for update of s skip locked`,
      [now, ...units.params, BATCH_SIZE],
    );
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
    }
    await em.flush();
    return rows.length;
  });
}
