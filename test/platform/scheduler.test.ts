/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { setTimeout as sleep } from 'node:timers/promises';
import { Scheduler, type Job } from '../../src/platform/jobs/scheduler.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

/** A job that takes a while and records how many of its runs were in progress at once. */
function slowJob(): Job & { runs: number; mostAtOnce: number } {
  let active = 0;
  const job = {
    name: 'slow',
    runs: 0,
    mostAtOnce: 0,
    async run() {
      active += 1;
      job.mostAtOnce = Math.max(job.mostAtOnce, active);
      await sleep(15);
      active -= 1;
      job.runs += 1;
    },
  };
  return job;
}

// The test clock answers once runOnce has returned. A tick running beside it could hold a row its run skips (the
// payout job's ledger lock), and the advance would answer before the payout was written.
test('runOnce never runs beside a tick, and returns only after a run of its own', async () => {
  const job = slowJob();
  const scheduler = new Scheduler([job], 1);
  scheduler.start();
  for (let i = 0; i < 10; i += 1) {
    const before = job.runs;
    await scheduler.runOnce();
    expect(job.runs).toBeGreaterThan(before);
  }
  await scheduler.stop();
  expect(job.mostAtOnce).toBe(1);
});

test('two runOnce calls at once run one after the other, and wake during a run runs again after it', async () => {
  const job = slowJob();
  const scheduler = new Scheduler([job], 60_000);
  scheduler.start();
  await Promise.all([scheduler.runOnce(), scheduler.runOnce()]);
  expect(job.runs).toBe(2);
  scheduler.wake();
  scheduler.wake();
  // The first wake started a run; the second, during it, asked for one more after it (the tick is a minute away).
  for (const deadline = Date.now() + CONDITION_DEADLINE_MS; job.runs < 4 && Date.now() < deadline;) await sleep(5);
  await sleep(50);
  await scheduler.stop();
  expect(job.runs).toBe(4);
  expect(job.mostAtOnce).toBe(1);
});

test('a wake during a run the test clock asked for runs again right after it, not at the next tick', async () => {
  const job = slowJob();
  const scheduler = new Scheduler([job], 60_000);
  scheduler.start();
  const asked = scheduler.runOnce();
  scheduler.wake();
  await asked;
  for (const deadline = Date.now() + CONDITION_DEADLINE_MS; job.runs < 2 && Date.now() < deadline;) await sleep(5);
  await scheduler.stop();
  expect(job.runs).toBe(2);
  expect(job.mostAtOnce).toBe(1);
});
