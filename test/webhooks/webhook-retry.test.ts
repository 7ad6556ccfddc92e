/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { loadConfig } from '../../src/config.js';
import { afterFailedAttempt } from '../../src/webhooks/webhook-retry.js';

const settings = loadConfig({}).webhooks;
const created = new Date('2026-11-22T12:00:00Z');
const delayAfter = (attempt: number, random: number, now = created) =>
  afterFailedAttempt(attempt, created, now, settings, () => random).nextAttemptAt.getTime() - now.getTime();

test('the defaults follow FACTS §2: 10 s timeout, retries for 7 days', () => {
  expect(settings).toMatchObject({ timeoutMs: 10_000, retryWindowMs: 7 * 24 * 60 * 60 * 1000 });
});

test('the first retry comes within seconds, then the delay doubles up to the cap, always with jitter', () => {
  expect([delayAfter(1, 0), delayAfter(1, 1)]).toEqual([1_000, 2_000]);
  expect([delayAfter(2, 0), delayAfter(2, 1)]).toEqual([2_000, 4_000]);
  expect([delayAfter(5, 0), delayAfter(5, 1)]).toEqual([16_000, 32_000]);
  expect(delayAfter(40, 1)).toBe(settings.maxRetryDelayMs);
  expect(delayAfter(10_000, 0.5)).toBe(settings.maxRetryDelayMs * 0.75);
});

test('a failure whose next try would fall outside the retry window is final', () => {
  const nearEnd = new Date(created.getTime() + settings.retryWindowMs - 10_000);
  expect(afterFailedAttempt(3, created, nearEnd, settings, () => 0).status).toBe('pending');
  expect(afterFailedAttempt(30, created, nearEnd, settings, () => 0)).toEqual({ status: 'failed', nextAttemptAt: nearEnd });
});
