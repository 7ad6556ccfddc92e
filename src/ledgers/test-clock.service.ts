import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { addDays, osloDate, osloMidnight } from './business-days.js';

/** The furthest one advance may move the clock: a year and a day. */
const MAX_ADVANCE_MS = 366 * 86_400_000;

const inFlight = new WeakMap<Services, Promise<unknown>>();

/**
 * The test environment's clock of one sales unit (refused in production): moves that unit's time forward, never
 * back, and runs every job that became due before answering, in time order. The clock stops at each Oslo midnight
 * on the way and the jobs run there (payouts close each ledger date as it ends), then at the target. Only the
 * unit's own objects see the new time: other units' payments, sessions and ledgers, and every access token, keep
 * theirs. Advances on this instance run one after another, so two callers never interleave their steps.
 */
export async function advanceTestClock(
  services: Services,
  msn: string,
  input: { seconds?: number | null; until?: string | null },
): Promise<Date> {
  if (services.config.env !== 'test') {
    throw new AppError('FORBIDDEN_IN_PRODUCTION', 'The test clock exists only in the test environment');
  }
  const previous = inFlight.get(services) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      const em = forkEm(services.orm);
      // Another instance may have moved this unit's clock since this one last looked.
      await services.testClocks.load(em);
      const clock = services.testClocks.of(msn);
      const target = targetOf(clock.now(), input);
      for (let date = addDays(osloDate(clock.now()), 1); osloMidnight(date).getTime() <= target.getTime(); date = addDays(date, 1)) {
        await services.testClocks.advance(em, msn, osloMidnight(date).getTime() - clock.now().getTime());
        await services.runJobsNow?.();
      }
      await services.testClocks.advance(em, msn, target.getTime() - clock.now().getTime());
      await services.runJobsNow?.();
      return clock.now();
    });
  inFlight.set(services, run);
  return run;
}

function targetOf(now: Date, input: { seconds?: number | null; until?: string | null }): Date {
  const hasSeconds = input.seconds !== undefined && input.seconds !== null;
  const hasUntil = input.until !== undefined && input.until !== null;
  if (hasSeconds === hasUntil) throw AppError.validation([{ name: 'seconds', reason: 'Give exactly one of seconds and until' }]);
  let target: Date;
  if (hasSeconds) {
    const seconds = input.seconds!;
    if (!Number.isInteger(seconds) || seconds <= 0)
      throw AppError.validation([{ name: 'seconds', reason: 'Must be a positive whole number' }]);
    target = new Date(now.getTime() + seconds * 1000);
  } else {
    target = new Date(input.until!);
    if (Number.isNaN(target.getTime())) throw AppError.validation([{ name: 'until', reason: 'Must be an ISO 8601 date-time' }]);
    if (target.getTime() <= now.getTime()) throw AppError.validation([{ name: 'until', reason: 'The test clock only moves forward' }]);
  }
  if (target.getTime() - now.getTime() > MAX_ADVANCE_MS) {
    throw AppError.validation([{ name: hasSeconds ? 'seconds' : 'until', reason: 'At most 366 days at a time' }]);
  }
  return target;
}
