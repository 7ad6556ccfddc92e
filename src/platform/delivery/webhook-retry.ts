import type { WebhookSettings } from '../../config.js';
import type { WebhookDeliveryStatus } from '../../webhooks/webhook.entity.js';

export interface DeliveryOutcome {
  status: WebhookDeliveryStatus;
  /** When to try again; unchanged (the attempt's time) when there is nothing more to try. */
  nextAttemptAt: Date;
}

/**
 * What follows a failed attempt: exponential backoff from `firstRetryDelayMs` (doubling, capped), with jitter so
 * receivers that came back are not hit by every sender at once; once the next try would fall outside the retry
 * window (7 days from the event by default), the delivery has failed for good.
 */
export function afterFailedAttempt(
  attemptCount: number,
  createdAt: Date,
  now: Date,
  settings: WebhookSettings,
  random: () => number = Math.random,
): DeliveryOutcome {
  const exponent = Math.min(attemptCount - 1, 40);
  const ceiling = Math.min(settings.maxRetryDelayMs, settings.firstRetryDelayMs * 2 ** exponent);
  // "Equal jitter": at least half the delay, so a retry never comes right away, and at most the whole of it.
  const delay = Math.round(ceiling / 2 + (random() * ceiling) / 2);
  const next = new Date(now.getTime() + delay);
  if (next.getTime() > createdAt.getTime() + settings.retryWindowMs) return { status: 'failed', nextAttemptAt: now };
  return { status: 'pending', nextAttemptAt: next };
}
