import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { logError } from '../../log.js';
import { afterFailedCallbackAttempt, callbackKinds, type CallbackKind } from './callback-kinds.js';
import { inTrace } from '../observability/trace-context.js';
import { postOutbound, type OutboundOutcome } from './outbound-post.js';

/** POSTs in flight per instance; a slow recipient takes one slot, not the whole deliverer. */
const MAX_IN_FLIGHT = 16;
/** A lease outlives the POST's timeout by this much, for recording the outcome; then the row is anyone's again. */
const LEASE_MARGIN_MS = 5_000;

/** What a claim writes over an attempt still without outcome: the instance that made it stopped mid-POST. */
export const INTERRUPTED_CALLBACK_ERROR = 'interrupted: the sending instance stopped before recording an outcome';

type Row = Record<string, unknown>;

interface ClaimedCallback {
  id: number;
  attemptId: number;
  leaseUntil: Date;
  attemptCount: number;
  kind: CallbackKind;
  url: string;
  authorization: string | null;
  body: string;
  streamType: string;
  streamId: string;
  /** The sales unit the callback is about, whose time (its test clock) says when it is due. */
  msn: string | null;
  /** The W3C `traceparent` of the request that recorded the callback, so its delivery goes out in that trace. */
  traceParent: string | null;
}

/**
 * Sends due outbound callbacks, the way webhooks are delivered: a short claim transaction (FOR UPDATE SKIP
 * LOCKED, so instances take disjoint rows) sets a lease and writes the attempt row before the POST; the POST runs
 * outside any transaction, bounded by its kind's timeout; a second short transaction records the outcome and
 * schedules the retry (or gives up) per the kind's policy. A callback is not claimed while an earlier one of the
 * same stream to the same URL is pending, so one recipient sees one stream's callbacks in order.
 */
export class CallbackDeliverer {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly services: Services,
    /** Called when a POST settles: the next callback of that stream may now be due. */
    private readonly onSettled: () => void = () => undefined,
  ) {}

  async run(): Promise<number> {
    const capacity = MAX_IN_FLIGHT - this.inFlight.size;
    const kinds = callbackKinds.names();
    if (capacity <= 0 || kinds.length === 0) return 0;
    const claimed = await this.claim(capacity, kinds);
    for (const callback of claimed) {
      const attempt: Promise<void> = this.attempt(callback)
        .catch((error: unknown) => logError('callback failed to record', error, { callbackId: callback.id }))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.onSettled();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  /** Waits for the POSTs in flight, so shutdown records their outcome before the database closes. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async claim(limit: number, kinds: string[]): Promise<ClaimedCallback[]> {
    const now = this.services.clock.now();
    // One lease length for every kind: the longest timeout. A lease only matters when its holder dies.
    const leaseUntil = new Date(now.getTime() + callbackKinds.longestTimeoutMs(this.services.config) + LEASE_MARGIN_MS);
    const rows = await forkEm(this.services.orm).execute<Row[]>(
      `with candidate as materialized (
         select c.id, c.next_attempt_at from outbound_callback c
         where c.status = 'pending'
           -- Due by its sales unit's time: a callback recorded at a unit's moved test clock is due at once.
           and c.next_attempt_at <= ?::timestamptz
             + coalesce((select t.offset_ms from test_clock t where t.msn = c.msn), 0) * interval '1 millisecond'
           and (c.lease_until is null or c.lease_until <= ?)
           and ?::jsonb @> jsonb_build_array(c.kind)
           and not exists (
             select 1 from outbound_callback earlier
             where earlier.stream_type = c.stream_type and earlier.stream_id = c.stream_id and earlier.url = c.url
               and earlier.status = 'pending' and earlier.id < c.id)
       ), due as (
         -- The lease is tested again on the locked row: another instance may have leased it after this snapshot.
         select c.id from outbound_callback c join candidate k on k.id = c.id
         where c.status = 'pending' and (c.lease_until is null or c.lease_until <= ?)
         order by k.next_attempt_at, k.id
         limit ?
         for update of c skip locked
       ), claimed as (
         update outbound_callback c set lease_until = ?
         from due where c.id = due.id
         returning c.id, c.kind, c.url, c.authorization_value, c.body, c.attempt_count, c.stream_type, c.stream_id, c.msn, c.trace_parent
       ), interrupted as (
         -- An earlier claim's attempt still without outcome: its lease ran out, so its instance stopped mid-POST.
         update outbound_callback_attempt a set error = ?
         from claimed c where a.callback_id = c.id and a.duration_ms is null and a.error is null
       ), started as (
         -- Written before the POST, so a crash during it still leaves a trace of the attempt.
         insert into outbound_callback_attempt (callback_id, attempted_at) select c.id, ? from claimed c
         returning id, callback_id
       )
       select c.*, s.id as attempt_id from claimed c join started s on s.callback_id = c.id`,
      [now, now, JSON.stringify(kinds), now, limit, leaseUntil, INTERRUPTED_CALLBACK_ERROR, now],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      attemptId: Number(row.attempt_id),
      leaseUntil,
      attemptCount: Number(row.attempt_count),
      // Claimed only when registered here (the jsonb filter above).
      kind: callbackKinds.get(row.kind as string)!,
      url: row.url as string,
      authorization: (row.authorization_value as string | null) ?? null,
      body: row.body as string,
      streamType: row.stream_type as string,
      streamId: row.stream_id as string,
      msn: (row.msn as string | null) ?? null,
      traceParent: (row.trace_parent as string | null) ?? null,
    }));
  }

  private async attempt(callback: ClaimedCallback): Promise<void> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (callback.authorization !== null) headers.authorization = callback.authorization;
    // The trace of the request that recorded the callback (W3C Trace Context), when it was traced.
    if (callback.traceParent) headers.traceparent = callback.traceParent;
    const started = performance.now();
    const outcome = await inTrace(callback.traceParent, () =>
      postOutbound(new URL(callback.url), callback.body, headers, {
        timeoutMs: callback.kind.timeoutMs(this.services.config),
        env: this.services.config.env,
        readResponseBody: callback.kind.readResponseBody,
      }),
    );
    await this.record(callback, Math.round(performance.now() - started), outcome);
  }

  private async record(callback: ClaimedCallback, durationMs: number, outcome: OutboundOutcome): Promise<void> {
    // Retries are timed by the unit's clock, the one its due time is compared with.
    const now = callback.msn === null ? this.services.clock.now() : this.services.testClocks.of(callback.msn).now();
    const statusCode = 'statusCode' in outcome ? outcome.statusCode : null;
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const attemptCount = callback.attemptCount + 1;
    const next = delivered
      ? { status: 'delivered', nextAttemptAt: now }
      : afterFailedCallbackAttempt(attemptCount, now, callback.kind.retry);
    this.services.metrics?.delivery('callback', delivered ? 'delivered' : next.status === 'failed' ? 'failed' : 'retry', durationMs / 1000);
    const error = 'error' in outcome ? outcome.error : null;
    await forkEm(this.services.orm).transactional(async (em) => {
      await em.execute('update outbound_callback_attempt set status_code = ?, duration_ms = ?, error = ? where id = ?', [
        statusCode,
        durationMs,
        error,
        callback.attemptId,
      ]);
      // Only the lease holder moves the callback on; a holder whose lease ran out leaves it to the next one.
      const moved = await em.execute<Row[]>(
        `update outbound_callback set status = ?, attempt_count = attempt_count + 1, next_attempt_at = ?, lease_until = null,
           delivered_at = ?, last_status_code = ?
         where id = ? and lease_until = ? returning id`,
        [next.status, next.nextAttemptAt, delivered ? now : null, statusCode, callback.id, callback.leaseUntil],
      );
      // The kind's reaction runs once per recorded outcome, in the same transaction: only for the lease holder.
      if (moved.length === 0) return;
      const onOutcome = callback.kind.onOutcome;
      if (onOutcome) {
        await onOutcome(
          em,
          {
            callbackId: callback.id,
            streamType: callback.streamType,
            streamId: callback.streamId,
            delivered,
            final: next.status !== 'pending',
            statusCode,
            responseBody: 'body' in outcome ? (outcome.body ?? null) : null,
            error,
          },
          now,
        );
      }
    });
  }
}
