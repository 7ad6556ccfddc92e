import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { inTrace } from '../observability/trace-context.js';
import { postOutbound, type OutboundOutcome } from './outbound-post.js';
import { logError } from '../../log.js';
import { eventTypes } from '../events/event-types.js';
import { OUTBOX_EVENT_COLUMNS, toOutboxEvent, type OutboxEvent } from '../events/outbox-event.js';
import { afterFailedAttempt } from './webhook-retry.js';
import { signWebhookRequest } from './webhook-signature.js';
import { EARLIER_DELIVERY_PENDING, EARLIER_EVENT_UNDISPATCHED } from './delivery-order.js';

/** POSTs in flight per instance; a slow receiver takes one slot, not the whole deliverer. */
const MAX_IN_FLIGHT = 32;
/**
 * POSTs in flight to one registration: a claim counts the leases held on it by every instance. Without this cap a
 * receiver that hangs, with many streams' events due, would take every slot for a whole timeout each round and
 * delay every other merchant's deliveries; with it, it holds at most this many (two instances claiming at the same
 * moment may each take up to the cap, as neither sees the other's uncommitted leases).
 */
export const MAX_IN_FLIGHT_PER_WEBHOOK = 4;
/**
 * A lease outlives the POST's timeout by this much, for recording the outcome (a short transaction); after that
 * the row is anyone's, so a delivery claimed by an instance that died is retried by another within seconds.
 */
const LEASE_MARGIN_MS = 5_000;

/** The header a receiver de-duplicates on: the outbox id of the event, the same on every retry. */
export const EVENT_ID_HEADER = 'x-paygraph-event-id';

type Row = Record<string, unknown>;

/** What a claim writes over an attempt still without outcome: the instance that made it stopped mid-POST. */
export const INTERRUPTED_ATTEMPT_ERROR = 'interrupted: the sending instance stopped before recording an outcome';

interface ClaimedDelivery {
  id: number;
  /** The attempt row written by the claim, completed once the POST ends. */
  attemptId: number;
  leaseUntil: Date;
  attemptCount: number;
  createdAt: Date;
  url: string;
  secret: string;
  traceParent: string | null;
  event: OutboxEvent;
}

/**
 * Delivers due webhook deliveries. A claim is a short transaction that sets a lease; the POST runs outside any
 * transaction and without blocking the scheduler; a second short transaction records the attempt and what
 * follows. A delivery is not claimed while an earlier event of the same stream (a payment, a checkout session, ...)
 * is still pending for the same registration (or not yet dispatched), so one endpoint sees one stream's events in
 * order. The body is the event's domain's (see EventTypeRegistry).
 */
export class WebhookDeliverer {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly services: Services,
    /** Called when a POST settles: the next event of that stream may now be due. */
    private readonly onSettled: () => void = () => undefined,
  ) {}

  async run(): Promise<number> {
    const capacity = MAX_IN_FLIGHT - this.inFlight.size;
    if (capacity <= 0) return 0;
    const claimed = await this.claim(capacity);
    for (const delivery of claimed) {
      const attempt: Promise<void> = this.attempt(delivery)
        .catch((error: unknown) => logError('webhook delivery failed to record', error, { deliveryId: delivery.id }))
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

  private async claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = this.services.clock.now();
    const leaseUntil = new Date(now.getTime() + this.services.config.webhooks.timeoutMs + LEASE_MARGIN_MS);
    const rows = await forkEm(this.services.orm).execute<Row[]>(
      // Each step is materialized: inlined, the window and the count ran again for every row the lock step looked
      // at, and a claim over a backlog of a few hundred deliveries took seconds.
      `with candidate as materialized (
         select d.id, d.webhook_id, d.next_attempt_at from webhook_delivery d
         where d.status = 'pending' and d.next_attempt_at <= ? and (d.lease_until is null or d.lease_until <= ?)
           and not ${EARLIER_DELIVERY_PENDING}
           and not ${EARLIER_EVENT_UNDISPATCHED}
       ), in_flight as materialized (
         select webhook_id, count(*) as leased from webhook_delivery
         where status = 'pending' and lease_until > ?
         group by webhook_id
       ), ranked as materialized (
         -- Each registration's due deliveries in turn, after the ones already in flight to it (on any instance).
         select c.id, c.next_attempt_at,
           row_number() over (partition by c.webhook_id order by c.next_attempt_at, c.id) + coalesce(f.leased, 0) as slot
         from candidate c left join in_flight f on f.webhook_id = c.webhook_id
       ), due as (
         -- Row locks cannot be taken beside a window function: the chosen rows are locked here, one level up. The
         -- lease is tested again on the locked row itself: PostgreSQL re-checks only this level's conditions against
         -- a row another instance leased and committed after this statement's snapshot, so without them both
         -- instances would claim it and the event would go out twice.
         select d.id from webhook_delivery d join ranked r on r.id = d.id
         where r.slot <= ? and d.status = 'pending' and (d.lease_until is null or d.lease_until <= ?)
         order by r.next_attempt_at, r.id
         limit ?
         for update of d skip locked
       ),
       claimed as (
         update webhook_delivery d set lease_until = ?
         from due, webhook w, domain_event e
         where d.id = due.id and w.id = d.webhook_id and e.id = d.event_id
         returning d.id, d.attempt_count, d.created_at, w.url, w.secret, e.trace_parent, ${OUTBOX_EVENT_COLUMNS}
       ), interrupted as (
         -- An earlier claim's attempt still without outcome: its lease ran out, so its instance stopped mid-POST.
         update webhook_delivery_attempt a set error = ?
         from claimed c where a.delivery_id = c.id and a.duration_ms is null and a.error is null
       ), started as (
         -- Written before the POST, so a crash during it still leaves a trace of the attempt.
         insert into webhook_delivery_attempt (delivery_id, attempted_at) select c.id, ? from claimed c
         returning id, delivery_id
       )
       select c.*, s.id as attempt_id from claimed c join started s on s.delivery_id = c.id`,
      [now, now, now, MAX_IN_FLIGHT_PER_WEBHOOK, now, limit, leaseUntil, INTERRUPTED_ATTEMPT_ERROR, now],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      attemptId: Number(row.attempt_id),
      leaseUntil,
      attemptCount: Number(row.attempt_count),
      createdAt: timestamp(row.created_at),
      url: row.url as string,
      secret: row.secret as string,
      traceParent: (row.trace_parent as string | null) ?? null,
      event: toOutboxEvent(row),
    }));
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { config, clock } = this.services;
    const url = new URL(delivery.url);
    const body = eventTypes.webhookBody(delivery.event);
    const signedAt = clock.now();
    const headers = {
      'content-type': 'application/json',
      [EVENT_ID_HEADER]: String(delivery.event.id),
      ...signWebhookRequest(url, body, delivery.secret, signedAt),
      // The trace of the request that caused the event (W3C Trace Context), when it was traced.
      ...(delivery.traceParent ? { traceparent: delivery.traceParent } : {}),
    };
    const started = performance.now();
    const outcome = await inTrace(delivery.traceParent, () =>
      postOutbound(url, body, headers, { timeoutMs: config.webhooks.timeoutMs, env: config.env }),
    );
    await this.record(delivery, Math.round(performance.now() - started), outcome);
  }

  private async record(delivery: ClaimedDelivery, durationMs: number, outcome: OutboundOutcome): Promise<void> {
    const now = this.services.clock.now();
    const statusCode = 'statusCode' in outcome ? outcome.statusCode : null;
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const attemptCount = delivery.attemptCount + 1;
    const next = delivered
      ? { status: 'delivered', nextAttemptAt: now }
      : afterFailedAttempt(attemptCount, delivery.createdAt, now, this.services.config.webhooks);
    // A response, even a 5xx, is described by its status code; `error` says why there was none.
    this.services.metrics?.delivery('webhook', delivered ? 'delivered' : next.status === 'failed' ? 'failed' : 'retry', durationMs / 1000);
    const error = 'error' in outcome ? outcome.error : null;
    await forkEm(this.services.orm).transactional(async (em) => {
      // The registration may have been deleted meanwhile (its deliveries with it): then there is nothing to record.
      const [current] = await em.execute<Row[]>('select lease_until from webhook_delivery where id = ? for update', [delivery.id]);
      if (!current) return;
      // Completes the attempt the claim wrote (attempted_at stays the claim's time, just before the POST).
      await em.execute('update webhook_delivery_attempt set status_code = ?, duration_ms = ?, error = ? where id = ?', [
        statusCode,
        durationMs,
        error,
        delivery.attemptId,
      ]);
      // Only the lease holder moves the delivery on; a holder whose lease ran out leaves it to the next one.
      await em.execute(
        `update webhook_delivery set status = ?, attempt_count = attempt_count + 1, next_attempt_at = ?, lease_until = null,
           delivered_at = ?, last_status_code = ?
         where id = ? and lease_until = ?`,
        [next.status, next.nextAttemptAt, delivered ? now : null, statusCode, delivery.id, delivery.leaseUntil],
      );
    });
  }
}

const timestamp = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
