import { LockMode } from '@mikro-orm/core';
import type { Services } from '../platform/context.js';
import { drainDueWork } from '../platform/jobs/due-work.js';
import { timelineFilter } from '../platform/test-clocks.js';
import { expirePayment } from './payment-expiry.js';
import { Payment } from './payment.entity.js';

/**
 * Moves payments nobody acted on to EXPIRED, with their event, each by its sales unit's time; each payment expires
 * exactly once however many instances run this.
 */
export function expireDuePayments(services: Services): Promise<number> {
  return drainDueWork(services, async (em, timeline, limit) => {
    const due = await em.find(
      Payment,
      { state: 'CREATED', expiresAt: { $lte: timeline.now }, ...timelineFilter(timeline) },
      { orderBy: { expiresAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
    for (const payment of due) expirePayment(em, payment, timeline.now);
    await em.flush();
    return due.length;
  });
}
