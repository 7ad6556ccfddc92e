import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { inTrace } from '../observability/trace-context.js';
import { logError } from '../../log.js';
import type { ClaimedDelivery, DeliveryChannel, RecordedAttempt, RecordedOutcome } from './delivery-channel.js';
import { postOutbound } from './outbound-post.js';

/**
 * POSTs in flight per instance, over every channel; a slow receiver takes its cap of slots, not the whole engine. Eight
 * receivers' caps: at 64, one slow receiver at its cap and four busy ones needed 80, so the instance's cap, not the
 * receivers', decided the pace (the webhook bench's engine sat at 63-64 leases while its backlog grew).
 */
export const MAX_IN_FLIGHT = 128;
/**
 * POSTs in flight to one receiver (a webhook registration, a callback URL), counting the leases every instance
 * holds. Within it, one stream has one delivery in flight at a time (a later one is held back until the earlier
 * is settled), so the cap lets that many distinct streams (payments) go out at once. A receiver that hangs, with
 * many streams due, holds at most this many slots and everybody else's deliveries go on (two instances claiming
 * at the same moment may each take up to the cap, as neither sees the other's uncommitted leases).
 */
export const MAX_IN_FLIGHT_PER_RECEIVER = 16;

/**
 * The one delivery mechanism: every round claims due deliveries from each channel (a short statement that leases
 * them and writes their attempt rows), POSTs them outside any transaction, each bounded by its kind's timeout, and
 * records the outcomes. Outcomes that settle together are recorded together, in one statement per channel, so a
 * busy instance spends one pooled connection per batch rather than one per POST; a kind that reacts to its
 * outcomes (`onOutcome`) gets a transaction of its own per outcome, shared with its record.
 */
export class DeliveryEngine {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly recorder: BatchRecorder;

  constructor(
    private readonly services: Services,
    private readonly channels: readonly DeliveryChannel[],
    /** Called once outcomes are recorded: the next delivery of those streams may now be due. */
    onSettled: () => void = () => undefined,
  ) {
    this.recorder = new BatchRecorder(services, onSettled);
  }

  async run(): Promise<number> {
    let claimed = 0;
    for (const channel of this.channels) {
      const capacity = MAX_IN_FLIGHT - this.inFlight.size;
      if (capacity <= 0) break;
      const deliveries = await channel.claim(forkEm(this.services.orm), capacity, MAX_IN_FLIGHT_PER_RECEIVER);
      for (const delivery of deliveries) this.start(channel, delivery);
      claimed += deliveries.length;
    }
    return claimed;
  }

  /** Waits for the POSTs in flight and their records, so shutdown records them before the database closes. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private start(channel: DeliveryChannel, delivery: ClaimedDelivery): void {
    const attempt: Promise<void> = this.attempt(channel, delivery)
      .catch((error: unknown) => logError('delivery failed to record', error, { channel: channel.name, deliveryId: delivery.id }))
      .finally(() => this.inFlight.delete(attempt));
    this.inFlight.add(attempt);
  }

  private async attempt(channel: DeliveryChannel, delivery: ClaimedDelivery): Promise<void> {
    const { policy } = delivery;
    const request = delivery.request();
    const started = performance.now();
    const outcome = await inTrace(delivery.traceParent, () =>
      postOutbound(request.url, request.body, request.headers, {
        timeoutMs: policy.timeoutMs,
        env: this.services.config.env,
        readResponseBody: policy.readResponseBody,
      }),
    );
    await this.recorder.record(channel, {
      delivery,
      durationMs: Math.round(performance.now() - started),
      // A response, even a 5xx, is described by its status code; `error` says why there was none.
      statusCode: 'statusCode' in outcome ? outcome.statusCode : null,
      error: 'error' in outcome ? outcome.error : null,
      responseBody: 'body' in outcome ? (outcome.body ?? null) : null,
    });
  }
}

interface Queued {
  channel: DeliveryChannel;
  attempt: RecordedAttempt;
  done: () => void;
  failed: (error: unknown) => void;
}

/** Writes settled attempts in batches: whatever settled while the previous batch was being written. */
class BatchRecorder {
  private queue: Queued[] = [];
  private writing = false;

  constructor(
    private readonly services: Services,
    private readonly onSettled: () => void,
  ) {}

  record(channel: DeliveryChannel, attempt: RecordedAttempt): Promise<void> {
    return new Promise((done, failed) => {
      this.queue.push({ channel, attempt, done, failed });
      if (!this.writing) void this.writeAll();
    });
  }

  private async writeAll(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        for (const channel of new Set(batch.map((q) => q.channel))) {
          await this.write(
            channel,
            batch.filter((q) => q.channel === channel),
          );
        }
        this.onSettled();
      }
    } finally {
      this.writing = false;
    }
  }

  private async write(channel: DeliveryChannel, batch: Queued[]): Promise<void> {
    const reacting = batch.filter((q) => q.attempt.delivery.policy.onOutcome);
    const plain = batch.filter((q) => !q.attempt.delivery.policy.onOutcome);
    const settle = async (items: Queued[], write: () => Promise<void>) => {
      try {
        await write();
        for (const item of items) item.done();
      } catch (error) {
        for (const item of items) item.failed(error);
      }
    };
    if (plain.length > 0) {
      const attempts = plain.map((q) => q.attempt);
      await settle(plain, async () => {
        await channel.record(forkEm(this.services.orm), attempts, attempts.map(this.outcomeOf));
      });
    }
    for (const item of reacting) {
      await settle([item], () =>
        forkEm(this.services.orm).transactional(async (em) => {
          const { attempt } = item;
          const outcome = this.outcomeOf(attempt);
          const moved = await channel.record(em, [attempt], [outcome]);
          // The kind's reaction runs once per recorded outcome, in the same transaction: only for the lease holder.
          if (!moved.has(attempt.delivery.id)) return;
          await attempt.delivery.policy.onOutcome!(
            em,
            {
              deliveryId: attempt.delivery.id,
              streamType: attempt.delivery.streamType,
              streamId: attempt.delivery.streamId,
              delivered: outcome.status === 'delivered',
              final: outcome.status !== 'pending',
              statusCode: attempt.statusCode,
              responseBody: attempt.responseBody,
              error: attempt.error,
            },
            outcome.at,
          );
        }),
      );
    }
  }

  /** What follows an attempt, by its policy; counted in the delivery metrics. */
  private readonly outcomeOf = (attempt: RecordedAttempt): RecordedOutcome => {
    const { delivery, statusCode } = attempt;
    const now = delivery.now();
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const next = delivered
      ? { status: 'delivered' as const, nextAttemptAt: now }
      : delivery.policy.afterFailedAttempt(delivery.attemptCount + 1, delivery.createdAt, now);
    this.services.metrics?.delivery(
      delivery.policy.metricsKind,
      delivered ? 'delivered' : next.status === 'failed' ? 'failed' : 'retry',
      attempt.durationMs / 1000,
    );
    return { at: now, status: next.status, nextAttemptAt: next.nextAttemptAt, deliveredAt: delivered ? now : null };
  };
}
