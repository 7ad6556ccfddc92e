import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { addDays, osloDate, osloMidnight } from './business-days.js';

/** The furthest one advance may move the clock: a year and a day. */
const MAX_ADVANCE_MS = 366 * 86_400_000;

/** Each unit's advance in progress on this instance: a unit's advances run one after another, units' side by side. */
const inFlight = new WeakMap<Services, Map<string, Promise<unknown>>>();

/**
 * The test environment's clock of one sales unit (refused in production): moves that unit's time forward, never
 * back, and runs every job that became due before answering, in time order, as if the clock had stopped at each Oslo
 * midnight on the way and run the jobs there (payouts close each ledger date as it ends), then at the target. It
 * stops only at the midnights where a job has work for the unit (Scheduler.nextDueFor: an expiry, a ledger date to
 * pay out, a batch period), so a year's advance with a few payments takes a few rounds of the jobs, not 366; a job
 * that cannot tell has it stop at every midnight. Only the unit's own objects see the new time: other units'
 * payments, sessions and ledgers, and every access token, keep theirs. One unit's advances on this instance run one
 * after another, so two callers never interleave their steps; another unit's never wait for them.
 */
export async function advanceTestClock(
  services: Services,
  msn: string,
  input: { seconds?: number | null; until?: string | null },
): Promise<Date> {
  if (services.config.env !== 'test') {
    throw new AppError('FORBIDDEN_IN_PRODUCTION', 'The test clock exists only in the test environment');
  }
  const units = inFlight.get(services) ?? new Map<string, Promise<unknown>>();
  inFlight.set(services, units);
  const previous = units.get(msn) ?? Promise.resolve();
  const run = previous
    .catch(() => undefined)
    .then(async () => {
      const em = forkEm(services.orm);
      // Another instance may have moved this unit's clock since this one last looked.
      await services.testClocks.load(em);
      const clock = services.testClocks.of(msn);
      const target = targetOf(clock.now(), input);
      for (let stop = await nextStop(services, msn, clock.now(), target); stop; stop = await nextStop(services, msn, clock.now(), target)) {
        await services.testClocks.advance(em, msn, stop.getTime() - clock.now().getTime());
        await services.runJobsNow?.();
      }
      await services.testClocks.advance(em, msn, target.getTime() - clock.now().getTime());
      await services.runJobsNow?.();
      return clock.now();
    });
  units.set(msn, run);
  try {
    return await run;
  } finally {
    if (units.get(msn) === run) units.delete(msn);
  }
}

/**
 * The next midnight before `target` at which the jobs have work for the unit (its first midnight at or after the
 * work's due time, and no earlier than the next one), or undefined: none before the target.
 */
async function nextStop(services: Services, msn: string, now: Date, target: Date): Promise<Date | undefined> {
  const nextMidnight = osloMidnight(addDays(osloDate(now), 1));
  const due = services.nextJobDueFor ? await services.nextJobDueFor(msn) : undefined;
  if (due === null) return undefined;
  const stop = due === undefined ? nextMidnight : new Date(Math.max(nextMidnight.getTime(), midnightAtOrAfter(due).getTime()));
  return stop.getTime() < target.getTime() ? stop : undefined;
}

function midnightAtOrAfter(instant: Date): Date {
  const midnight = osloMidnight(osloDate(instant));
  return midnight.getTime() >= instant.getTime() ? midnight : osloMidnight(addDays(osloDate(instant), 1));
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
