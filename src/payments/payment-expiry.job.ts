import type { Services } from '../platform/context.js';
import { runOperation } from '../platform/db/run-operation.js';
import { drainDueWork, earliestDue } from '../platform/jobs/due-work.js';
import { expiry } from './payment-expiry.js';
import { lockedOverduePayments } from './payment-for-verb.js';

/**
 * Moves payments nobody acted on to EXPIRED, with their event, each by its sales unit's time; each payment expires
 * exactly once however many instances run this (the payments are locked, and skipped while another instance holds them).
 */
export function expireDuePayments(services: Services): Promise<number> {
  return drainDueWork(services, (em, timeline, limit) =>
    runOperation(
      { em, clock: services.clock },
      {
        read: lockedOverduePayments(timeline, limit),
        decide: ({ found }) => ({ changed: found, events: found.map((payment) => expiry(payment, timeline.now)), value: found.length }),
      },
    ),
  );
}

/** When the unit's first payment nobody acted on expires (the test clock's advance stops there). */
export function nextPaymentExpiry(services: Services, msn: string): Promise<Date | null> {
  return earliestDue(services, `select min(expires_at) as due from payment where msn = ? and state = 'CREATED'`, [msn]);
}
