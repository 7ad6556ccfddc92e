import type { WebhookSettings } from '../config.js';
import type { DeliveryStatus } from '../platform/delivery/delivery-status.js';
import { backoffDelayMs } from '../platform/delivery/backoff.js';

export interface DeliveryOutcome {
  status: DeliveryStatus;
  /** When to try again; unchanged (the attempt's time) when there is nothing more to try. */
  nextAttemptAt: Date;
}

/**
 * What follows a failed webhook attempt: backoff from `firstRetryDelayMs` (see backoffDelayMs); once the next try
 * would fall outside the retry window (7 days from the event by default), the delivery has failed for good.
 */
export function afterFailedAttempt(
  attemptCount: number,
  createdAt: Date,
  now: Date,
  settings: WebhookSettings,
  random: () => number = Math.random,
): DeliveryOutcome {
  const delay = backoffDelayMs(attemptCount, settings.firstRetryDelayMs, settings.maxRetryDelayMs, random);
  const next = new Date(now.getTime() + delay);
  if (next.getTime() > createdAt.getTime() + settings.retryWindowMs) return { status: 'failed', nextAttemptAt: now };
  return { status: 'pending', nextAttemptAt: next };
}
