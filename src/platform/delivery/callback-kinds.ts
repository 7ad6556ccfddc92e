import type { Config } from '../../config.js';
import type { Em } from '../db/orm.js';
import type { AttemptOutcome } from './delivery-channel.js';
import type { DeliveryStatus } from './delivery-status.js';
import { backoffDelayMs } from './backoff.js';
import { WEBHOOK_KIND } from './delivery.entity.js';

/** How often, and how far apart, a callback is tried before it fails for good. */
export interface CallbackRetryPolicy {
  /** Attempts in all, the first included; after the last failed one the callback has failed. */
  maxAttempts: number;
  /** Delay before the second attempt; each further one doubles it (with jitter) up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
}

/**
 * One kind of outbound callback (the PSP make-payment callback, a checkout callback): its recipient chooses the URL
 * and the Authorization value per callback; the kind fixes how long one POST may take and how it is retried.
 */
export interface CallbackKind {
  /** Stored on every callback row, e.g. `psp.make-payment`. */
  name: string;
  /** How long one POST may take, fixed or read from the configuration. */
  timeoutMs(config: Config): number;
  retry: CallbackRetryPolicy;
  /** Read the recipient's answer (bounded) and hand it to `onOutcome`. */
  readResponseBody?: boolean;
  /**
   * Called in the transaction that records an attempt's outcome, so the domain's reaction (a PSP payment becoming
   * RESERVED or FAILED) commits with it: `final` when no further attempt follows (delivered, or out of attempts).
   */
  onOutcome?(em: Em, outcome: AttemptOutcome, now: Date): Promise<void>;
}

/**
 * The callback kinds of every domain, registered when the app (or a test) starts. A callback whose kind is not
 * registered in a process is left alone by that process's deliverer rather than sent with a guessed policy.
 */
export class CallbackKindRegistry {
  private readonly kinds = new Map<string, CallbackKind>();

  register(kind: CallbackKind): void {
    const existing = this.kinds.get(kind.name);
    if (existing === kind) return;
    if (existing) throw new Error(`Callback kind ${kind.name} is registered twice`);
    // Webhook deliveries share the delivery table under this kind; a callback kind by that name would be read as one.
    if (kind.name === WEBHOOK_KIND) throw new Error(`A callback kind cannot be named ${WEBHOOK_KIND}`);
    if (!Number.isSafeInteger(kind.retry.maxAttempts) || kind.retry.maxAttempts < 1) {
      throw new Error(`Callback kind ${kind.name} must allow at least one attempt`);
    }
    this.kinds.set(kind.name, kind);
  }

  get(name: string): CallbackKind | undefined {
    return this.kinds.get(name);
  }

  names(): string[] {
    return [...this.kinds.keys()];
  }

  /** The longest POST any registered kind allows: what a claim's lease must outlast. */
  longestTimeoutMs(config: Config): number {
    return Math.max(0, ...[...this.kinds.values()].map((kind) => kind.timeoutMs(config)));
  }
}

/** The process's registry; domains register their kinds in it at start. */
export const callbackKinds = new CallbackKindRegistry();

/** What follows a failed attempt: a retry after backoff, or failure once the kind's attempts are used up. */
export function afterFailedCallbackAttempt(
  attemptCount: number,
  now: Date,
  policy: CallbackRetryPolicy,
  random: () => number = Math.random,
): { status: DeliveryStatus; nextAttemptAt: Date } {
  if (attemptCount >= policy.maxAttempts) return { status: 'failed', nextAttemptAt: now };
  return {
    status: 'pending',
    nextAttemptAt: new Date(now.getTime() + backoffDelayMs(attemptCount, policy.firstDelayMs, policy.maxDelayMs, random)),
  };
}
