import type { Services } from '../platform/context.js';
import { isAdvanceable } from '../platform/clock.js';
import { AppError } from '../platform/errors/app-error.js';
import { addDays, osloDate, osloMidnight } from './business-days.js';

/** The furthest one advance may move the clock: a year and a day. */
const MAX_ADVANCE_MS = 366 * 86_400_000;

const inFlight = new WeakMap<Services, Promise<unknown>>();

/**
 * The test environment's clock (refused in production): moves the service's one clock forward, never back, and
 * runs every job that became due before answering, in time order. The clock stops at each Oslo midnight on the
 * way and the jobs run there (payouts close each ledger date as it ends), then at the target. Advances run one
 * after another, so two callers never interleave their steps.
 */
export async function advanceTestClock(services: Services, input: { seconds?: number | null; until?: string | null }): Promise<Date> {
  if (services.config.env !== 'test') {
    throw new AppError('FORBIDDEN_IN_PRODUCTION', 'The test clock exists only in the test environment');
  }
  const clock = services.clock;
  if (!isAdvanceable(clock)) throw new AppError('FORBIDDEN_IN_PRODUCTION', 'This service runs on a clock that cannot be advanced');
  const previous = inFlight.get(services) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      const now = clock.now();
      const target = targetOf(now, input);
      for (let date = addDays(osloDate(now), 1); osloMidnight(date).getTime() <= target.getTime(); date = addDays(date, 1)) {
        clock.advance(osloMidnight(date).getTime() - clock.now().getTime());
        await services.runJobsNow?.();
      }
      clock.advance(target.getTime() - clock.now().getTime());
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
