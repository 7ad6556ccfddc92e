/**
 * Exponential backoff from `firstDelayMs` (doubling per attempt, capped at `maxDelayMs`) with "equal jitter": at
 * least half the delay, so a retry never comes right away, and at most the whole of it, so receivers that came
 * back are not hit by every sender at once. `attemptCount` is the number of attempts made so far (1 after the first).
 */
export function backoffDelayMs(attemptCount: number, firstDelayMs: number, maxDelayMs: number, random: () => number = Math.random): number {
  const exponent = Math.min(attemptCount - 1, 40);
  const ceiling = Math.min(maxDelayMs, firstDelayMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
