import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { inTrace } from '../observability/trace-context.js';
import { logError } from '../../log.js';
import type { ClaimedDelivery, DeliveryChannel, RecordedAttempt, RecordedOutcome } from './delivery-channel.js';
import { renewLeases } from './delivery-table.js';
import { postOutbound } from './outbound-post.js';
import { RECEIVER_CONCURRENCY, ReceiverConcurrency } from './receiver-concurrency.js';

/**
 * POSTs in flight per instance, over every channel. Each receiver has a cap of its own (ReceiverConcurrency), at most
 * a quarter of this: a slow receiver takes its cap of slots, not the whole engine, and four receivers answering in
 * 150 ms at 100 events a second each (about 25 POSTs in flight apiece, with the claims and records between) fit.
 */
export const MAX_IN_FLIGHT = 256;

/**
 * The one delivery mechanism: every round renews the leases it holds that are half spent, then claims due
 * deliveries from each channel (a short statement that leases them and writes their attempt rows), POSTs them
 * outside any transaction, each bounded by its kind's timeout, and records the outcomes. Outcomes that settle
 * together are recorded together, in one statement per channel, so a busy instance spends one pooled connection per
 * batch rather than one per POST; a kind that reacts to its outcomes (`onOutcome`) gets a transaction of its own per
 * outcome, shared with its record.
 *
 * Within a receiver's cap, one stream has one delivery in flight at a time (a later one is held back until the
 * earlier is settled), so the cap is how many distinct streams (payments) go out at once; the cap follows the
 * receiver's answers (ReceiverConcurrency), and the claim counts the leases every instance holds against it.
 *
 * A lease is renewed for as long as its POST is in flight or its outcome unrecorded: however long load delays the
 * record, no other claim takes the delivery while this instance holds it (a lease that ran out would send it twice).
 * Renewals and records are written one at a time, so a record always names the lease the row carries.
 */
export class DeliveryEngine {
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries claimed here whose outcome is not yet recorded: the leases this instance renews. */
  private readonly held = new Map<number, ClaimedDelivery>();
  /** POSTs in flight per receiver, from this instance. */
  private readonly sending = new Map<string, number>();
  private readonly concurrency = new ReceiverConcurrency();
  private readonly leaseWrites = new SerialWrites();
  private readonly recorder: BatchRecorder;

  constructor(
    private readonly services: Services,
    private readonly channels: readonly DeliveryChannel[],
    /** Called once outcomes are recorded: the next delivery of those streams may now be due. */
    onSettled: () => void = () => undefined,
  ) {
    this.recorder = new BatchRecorder(services, onSettled, this.leaseWrites);
  }

  async run(): Promise<number> {
    await this.renewLeases();
    let claimed = 0;
    for (const channel of this.channels) {
      const capacity = MAX_IN_FLIGHT - this.inFlight.size;
      if (capacity <= 0) break;
      const limits = { initial: RECEIVER_CONCURRENCY.initial, of: this.concurrency.limits() };
      const deliveries = await channel.claim(forkEm(this.services.orm), capacity, limits, [...this.held.keys()]);
      for (const delivery of deliveries) this.start(channel, delivery);
      claimed += deliveries.length;
    }
    return claimed;
  }

  /** Waits for the POSTs in flight and their records, so shutdown records them before the database closes. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Renews the leases held here that are half spent (the jobs' tick runs this often enough for any lease of a second
   * or more); a lease found taken (it ran out, and another instance claimed the delivery) is renewed no more.
   */
  private async renewLeases(): Promise<void> {
    const now = this.services.clock.now().getTime();
    const due = [...this.held.values()].filter((d) => d.leaseUntil.getTime() - now < d.leaseMs / 2);
    if (due.length === 0) return;
    await this.leaseWrites.run(async () => {
      // Grouped by lease length (one per channel): one statement each.
      for (const leaseMs of new Set(due.map((d) => d.leaseMs))) {
        const group = due.filter((d) => d.leaseMs === leaseMs && this.held.has(d.id));
        const until = new Date(this.services.clock.now().getTime() + leaseMs);
        const renewed = await renewLeases(forkEm(this.services.orm), group, until);
        for (const delivery of group) {
          if (renewed.has(delivery.id)) delivery.leaseUntil = until;
          else this.held.delete(delivery.id);
        }
      }
    });
  }

  private start(channel: DeliveryChannel, delivery: ClaimedDelivery): void {
    this.held.set(delivery.id, delivery);
    const attempt: Promise<void> = this.attempt(channel, delivery)
      .catch((error: unknown) => logError('delivery failed to record', error, { channel: channel.name, deliveryId: delivery.id }))
      .finally(() => {
        this.held.delete(delivery.id);
        this.inFlight.delete(attempt);
      });
    this.inFlight.add(attempt);
  }

  private async attempt(channel: DeliveryChannel, delivery: ClaimedDelivery): Promise<void> {
    const { policy, receiver } = delivery;
    const request = delivery.request();
    this.sending.set(receiver, (this.sending.get(receiver) ?? 0) + 1);
    const started = performance.now();
    let outcome: Awaited<ReturnType<typeof postOutbound>>;
    try {
      outcome = await inTrace(delivery.traceParent, () =>
        postOutbound(request.url, request.body, request.headers, {
          timeoutMs: policy.timeoutMs,
          env: this.services.config.env,
          readResponseBody: policy.readResponseBody,
        }),
      );
    } finally {
      const sending = this.sending.get(receiver) ?? 1;
      if (sending <= 1) this.sending.delete(receiver);
      else this.sending.set(receiver, sending - 1);
    }
    const durationMs = performance.now() - started;
    const statusCode = 'statusCode' in outcome ? outcome.statusCode : null;
    this.concurrency.answered(receiver, {
      startedAt: started,
      durationMs,
      keepingUp: statusCode !== null && statusCode < 500 && statusCode !== 429,
      inFlight: (this.sending.get(receiver) ?? 0) + 1,
    });
    await this.recorder.record(channel, {
      delivery,
      durationMs: Math.round(durationMs),
      // A response, even a 5xx, is described by its status code; `error` says why there was none.
      statusCode,
      error: 'error' in outcome ? outcome.error : null,
      responseBody: 'body' in outcome ? (outcome.body ?? null) : null,
    });
  }
}

/** Writes that must not interleave: a lease's renewal and the record that names the lease. */
class SerialWrites {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(write: () => Promise<T>): Promise<T> {
    const result = this.tail.then(write);
    this.tail = result.catch(() => undefined);
    return result;
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
    private readonly leaseWrites: SerialWrites,
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
          await this.leaseWrites.run(() =>
            this.write(
              channel,
              batch.filter((q) => q.channel === channel),
            ),
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
