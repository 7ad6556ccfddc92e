import { LockMode } from '@mikro-orm/core';
import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { timelineFilter, type Timeline } from '../platform/test-clocks.js';
import { expirePayment } from './payment-expiry.js';
import { Payment } from './payment.entity.js';

const BATCH_SIZE = 100;

/**
 * Moves payments nobody acted on to EXPIRED, with their event, each by its sales unit's time. Rows are claimed
 * with SKIP LOCKED, so any number of instances can run this at once and each payment expires exactly once.
 */
export async function expireDuePayments(services: Services): Promise<number> {
  let total = 0;
  for (const timeline of services.testClocks.timelines()) total += await expireOnTimeline(services, timeline);
  return total;
}

async function expireOnTimeline(services: Services, timeline: Timeline): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await forkEm(services.orm).transactional(async (em) => {
      const now = timeline.now;
      const due = await em.find(
        Payment,
        { state: 'CREATED', expiresAt: { $lte: now }, ...timelineFilter(timeline) },
        { orderBy: { expiresAt: 'asc' }, limit: BATCH_SIZE, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
      );
      for (const payment of due) expirePayment(em, payment, now);
      await em.flush();
      return due.length;
    });
    total += expired;
    if (expired < BATCH_SIZE) return total;
  }
}
