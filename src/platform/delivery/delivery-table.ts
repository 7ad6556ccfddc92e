import { idArrayParam } from '../db/id-array.js';
import type { Config } from '../../config.js';
import type { Em } from '../db/orm.js';
import type { ClaimedDelivery, ReceiverLimits, RecordedAttempt, RecordedOutcome } from './delivery-channel.js';

export type { ReceiverLimits };

/** What a claim writes over an attempt still without outcome: the instance that made it stopped mid-POST. */
export const INTERRUPTED_ATTEMPT_ERROR = 'interrupted: the sending instance stopped before recording an outcome';

export type Row = Record<string, unknown>;

/**
 * One family of deliveries in the `delivery` table (webhooks; callbacks), as the claim sees it: which rows are its
 * and due, what holds one back, and what the claim returns to build its requests. Every family shares the table, its
 * attempts (`delivery_attempt`), the receiver column that per-receiver fairness counts, leases and recording.
 */
export interface DeliveryFamily {
  /** SQL over the row `d`, with `?` parameters `dueParams`: one of this family's deliveries, due now. */
  due: string;
  /**
   * SQL over `d`: an earlier delivery of its stream to the same receiver is still pending (or its event is not yet
   * fanned out), so this one waits: one receiver sees one stream's deliveries in order, one in flight at a time.
   */
  heldBack: string;
  /** What the claim returns beside the delivery's own columns: `from` joins and their columns. */
  returning: { from: string; where: string; columns: string };
}

/**
 * Claims due deliveries in one statement: per receiver with room under the cap (leases held by every instance
 * count), its due deliveries in turn by due time, skipping those held back by an earlier one of their stream;
 * then the oldest `limit` of those, locked SKIP LOCKED, leased, any earlier attempt without outcome marked
 * interrupted, and a new attempt row written before the POST (so a crash during it still leaves a trace).
 */
export async function claimDeliveries(
  em: Em,
  t: DeliveryFamily,
  o: { now: Date; dueParams: unknown[]; leaseUntil: Date; limit: number; perReceiver: ReceiverLimits; held?: readonly number[] },
): Promise<Row[]> {
  return em.execute<Row[]>(
    // Receivers first, then a bounded index walk per receiver (its index on receiver and due time): the work of a
    // claim follows what it can take, not the backlog. The receivers are found by a skip scan of that index, one
    // probe per receiver, and each one's leases counted in the small index of leased rows: reading every pending row
    // for them made a claim's cost grow with the backlog (5,600 rows, 15 of a claim's 17 ms, in the webhook bench),
    // so a backlog slowed the claims that drain it. Each step is materialized so PostgreSQL does not run it again per
    // row of the next. Pending is named `lower(status) = 'pending'`, the predicate of the claim's own indexes, each
    // step with the always-true condition that names its index (Migration20261205070000ClaimIndexes): no statistics
    // size them, and no step can read any other index of pending rows. With `status = 'pending'`, statistics taken
    // when nothing was pending made every such index look empty, and a burst's claim walked the index by due time
    // alone, probing every pending row (104,821 buffers with 2,000 pending, 751 with 40). The chosen rows are then
    // locked by primary key, a level that no index of pending rows can serve.
    `with recursive pending_receivers(receiver) as (
       (select d.receiver from delivery d where lower(d.status) = 'pending' and d.attempt_count >= 0 order by d.receiver limit 1)
       union all
       select (select d.receiver from delivery d
               where lower(d.status) = 'pending' and d.attempt_count >= 0 and d.receiver > p.receiver
               order by d.receiver limit 1)
       from pending_receivers p where p.receiver is not null
     ), receivers as materialized (
       select r.receiver, l.leased, c.cap
       from pending_receivers r cross join lateral (
         select count(*) as leased from delivery d
         where d.receiver = r.receiver and lower(d.status) = 'pending' and d.lease_until is not null and d.lease_until > ?
       ) l cross join lateral (select coalesce((?::jsonb ->> r.receiver::text)::int, ?) as cap) c
       where r.receiver is not null and l.leased < c.cap
     ), candidate as materialized (
       select c.id from receivers r cross join lateral (
         select d.id from delivery d
         -- attempt_count >= 0 is always true: it names the receiver index (see Migration20261205070000ClaimIndexes).
         where d.receiver = r.receiver and lower(d.status) = 'pending' and d.attempt_count >= 0 and ${t.due}
           and (d.lease_until is null or d.lease_until <= ?) and not ${t.heldBack}
         order by d.next_attempt_at, d.id
         limit greatest(r.cap - r.leased, 0)
       ) c
     ), due as (
       -- Row locks cannot be taken beside a lateral join: the chosen rows are locked here, one level up, by their ids.
       -- The lease is tested again on the locked row: PostgreSQL re-checks only this level's conditions against a
       -- row another instance leased (or recorded) and committed after this statement's snapshot, and without them
       -- both would send it. Pending is tested as coalesce(…, false) here: no partial index of pending rows serves
       -- that, so the rows are found by primary key, never by a scan of the pending ones (a plan that sizes those by
       -- stale statistics picks). Never one this instance still holds, whatever its lease says (a stall between
       -- renewal and claim).
       select d.id from delivery d
       where d.id = any(array(select k.id from candidate k))
         and coalesce(d.status = 'pending', false) and (d.lease_until is null or d.lease_until <= ?)
         and d.id <> all(?::bigint[])
       order by d.next_attempt_at, d.id
       limit ?
       for update of d skip locked
     ), claimed as (
       update delivery d set lease_until = ?
       from due${t.returning.from}
       where d.id = due.id${t.returning.where}
       returning d.id, d.receiver, d.attempt_count, d.created_at, d.stream_type, d.stream_id, d.trace_parent, ${t.returning.columns}
     ), interrupted as (
       -- An earlier claim's attempt still without outcome: its lease ran out, so its instance stopped mid-POST.
       update delivery_attempt a set error = ?
       from claimed c where a.delivery_id = c.id and a.duration_ms is null and a.error is null
     ), started as (
       insert into delivery_attempt (delivery_id, attempted_at) select c.id, ? from claimed c
       returning id, delivery_id, attempted_at
     )
     select c.*, s.id as attempt_id, s.attempted_at as attempt_at from claimed c join started s on s.delivery_id = c.id`,
    [
      o.now,
      JSON.stringify(o.perReceiver.of),
      o.perReceiver.initial,
      ...o.dueParams,
      o.now,
      o.now,
      idArrayParam(o.held ?? []),
      o.limit,
      o.leaseUntil,
      INTERRUPTED_ATTEMPT_ERROR,
      o.now,
    ],
  );
}

/**
 * Records attempts in one statement: each attempt completed, and each delivery moved on by what its policy decided,
 * but only where this instance still holds the lease (a holder whose lease ran out leaves the row to the next
 * claim). A delivery deleted meanwhile (its registration deleted) matches nothing. Returns the moved ids.
 */
export async function recordAttempts(
  em: Em,
  attempts: readonly RecordedAttempt[],
  outcomes: readonly RecordedOutcome[],
): Promise<Set<number>> {
  const rows = attempts.map((a, i) => ({
    id: a.delivery.id,
    attempt_id: a.delivery.attemptId,
    attempted_at: a.delivery.attemptedAt.toISOString(),
    lease_until: a.delivery.leaseUntil.toISOString(),
    status: outcomes[i]!.status,
    next_attempt_at: outcomes[i]!.nextAttemptAt.toISOString(),
    delivered_at: outcomes[i]!.deliveredAt?.toISOString() ?? null,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
  }));
  // The ids also as arrays, so both updates find their rows by primary key: joined to the JSON alone, which PostgreSQL
  // takes for 100 rows, a table without fresh statistics was read whole per record (10 ms at 8,700 rows in the bench).
  const moved = await em.execute<Row[]>(
    `with o as materialized (
       select * from jsonb_to_recordset(?::jsonb) as o(id bigint, attempt_id bigint, lease_until timestamptz, status text,
         next_attempt_at timestamptz, delivered_at timestamptz, status_code int, duration_ms int, error text)
     ), completed as (
       -- The attempt the claim wrote (attempted_at stays the claim's time, just before the POST).
       update delivery_attempt a set status_code = o.status_code, duration_ms = o.duration_ms, error = o.error
       from o where a.id = any(?::bigint[]) and a.attempted_at = any(?::timestamptz[]) and a.id = o.attempt_id
     )
     update delivery d set status = o.status, attempt_count = d.attempt_count + 1, next_attempt_at = o.next_attempt_at,
       lease_until = null, delivered_at = o.delivered_at, last_status_code = o.status_code
     from o where d.id = any(?::bigint[]) and d.id = o.id and d.lease_until = o.lease_until
     returning d.id`,
    [
      JSON.stringify(rows),
      idArrayParam(rows.map((r) => r.attempt_id)),
      `{${[...new Set(rows.map((r) => r.attempted_at))].join(',')}}`,
      idArrayParam(rows.map((r) => r.id)),
    ],
  );
  return new Set(moved.map((row) => Number(row.id)));
}

/**
 * Extends the leases of deliveries this instance still holds (POST in flight, or its outcome not yet recorded) to
 * `until`, each only where the row still carries the lease this instance was given; returns the ids extended. A lease
 * ran out and was claimed by another instance: that one holds it now, and this one's record will not match.
 */
export async function renewLeases(em: Em, held: readonly ClaimedDelivery[], until: Date): Promise<Set<number>> {
  if (held.length === 0) return new Set();
  const rows = held.map((d) => ({ id: d.id, lease_until: d.leaseUntil.toISOString() }));
  const renewed = await em.execute<Row[]>(
    `update delivery d set lease_until = ?
     from jsonb_to_recordset(?::jsonb) as o(id bigint, lease_until timestamptz)
     where d.id = any(?::bigint[]) and d.id = o.id and d.status = 'pending' and d.lease_until = o.lease_until
     returning d.id`,
    [until, JSON.stringify(rows), idArrayParam(rows.map((r) => r.id))],
  );
  return new Set(renewed.map((row) => Number(row.id)));
}

/** A lease outlives the POST's timeout by this much, for recording the outcome; after that the row is anyone's again. */
const LEASE_MARGIN_MS = 5_000;

/**
 * How long a claim leases its deliveries, whose POSTs may take up to `timeoutMs`: `PAYGRAPH_DELIVERY_LEASE_MS` when
 * set, else the timeout and a margin. The holder renews it while the POST is in flight and its outcome unrecorded
 * (DeliveryEngine), so load can delay a record past it without another claim sending the delivery again; the length
 * only decides how soon the deliveries of an instance that stopped are taken over.
 */
export const leaseLength = (config: Pick<Config, 'deliveryLeaseMs'>, timeoutMs: number): number =>
  config.deliveryLeaseMs ?? timeoutMs + LEASE_MARGIN_MS;

export const timestamp = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));

/** What every claimed row says of itself, whatever its channel: the part of a ClaimedDelivery the table gives. */
export function claimedRow(
  row: Row,
  leaseUntil: Date,
  leaseMs: number,
): Pick<
  ClaimedDelivery,
  | 'id'
  | 'receiver'
  | 'attemptId'
  | 'attemptedAt'
  | 'leaseUntil'
  | 'leaseMs'
  | 'attemptCount'
  | 'createdAt'
  | 'streamType'
  | 'streamId'
  | 'traceParent'
> {
  return {
    id: Number(row.id),
    receiver: String(row.receiver),
    leaseMs,
    attemptId: Number(row.attempt_id),
    attemptedAt: timestamp(row.attempt_at),
    leaseUntil,
    attemptCount: Number(row.attempt_count),
    createdAt: timestamp(row.created_at),
    streamType: row.stream_type as string,
    streamId: row.stream_id as string,
    traceParent: (row.trace_parent as string | null) ?? null,
  };
}
