import type { Em } from '../db/orm.js';
import type { DeliveryStatus } from './delivery-status.js';

/** The request one attempt sends: built just before the POST (a webhook is signed at that moment). */
export interface OutboundRequest {
  url: URL;
  body: string;
  headers: Record<string, string>;
}

/** What one attempt came to, for a kind's `onOutcome` (the PSP make-payment callback decides its payment here). */
export interface AttemptOutcome {
  deliveryId: number;
  streamType: string;
  streamId: string;
  /** A 2xx status. */
  delivered: boolean;
  /** No further attempt follows (delivered, or out of attempts or of the retry window). */
  final: boolean;
  statusCode: number | null;
  /** The answer's body when the kind reads it. */
  responseBody: string | null;
  error: string | null;
}

/**
 * The policy of one kind of delivery (webhooks; each callback kind): how long a POST may take, what follows a
 * failed attempt (its retry schedule and give-up horizon), and the domain's reaction to an outcome, run in the
 * transaction that records it.
 */
export interface DeliveryPolicy {
  /** The label of the delivery metrics: `webhook` or `callback`. */
  metricsKind: 'webhook' | 'callback';
  timeoutMs: number;
  readResponseBody?: boolean;
  afterFailedAttempt(attemptCount: number, createdAt: Date, now: Date): { status: DeliveryStatus; nextAttemptAt: Date };
  onOutcome?(em: Em, outcome: AttemptOutcome, now: Date): Promise<void>;
}

/** A delivery claimed by this instance: leased until `leaseUntil`, its attempt row already written. */
export interface ClaimedDelivery {
  id: number;
  /** Its receiver (the `receiver` column): whose concurrency its POST counts against. */
  receiver: string;
  attemptId: number;
  /**
   * The attempt row's time, which with its id keys the attempt log partitioned by day: the outcome's update names it,
   * so it reads one day's partition instead of probing every day kept.
   */
  attemptedAt: Date;
  /** The lease this instance holds on the row; moved on when the engine renews it. */
  leaseUntil: Date;
  /** How far each renewal extends it. */
  leaseMs: number;
  attemptCount: number;
  createdAt: Date;
  streamType: string;
  streamId: string;
  /** The W3C `traceparent` of the request that caused the delivery: its POST goes out in that trace. */
  traceParent: string | null;
  policy: DeliveryPolicy;
  /** The clock its retries are timed by (a callback's sales unit may have a test clock of its own). */
  now(): Date;
  request(): OutboundRequest;
}

/** One attempt's result, as the recorder writes it. */
export interface RecordedAttempt {
  delivery: ClaimedDelivery;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

/**
 * One family of deliveries (webhook deliveries; callbacks of the registered kinds), rows of the one `delivery` table,
 * and how its rows are claimed and recorded: what it needs to build its requests differs (a webhook is made from its
 * event and signed with its registration's secret), the engine (delivery-engine.ts) and the table are the same.
 */
export interface DeliveryChannel {
  name: string;
  /**
   * Claims up to `limit` due deliveries, at most a receiver's cap (`perReceiver`) in flight to it across instances,
   * none of those this instance still `held`.
   */
  claim(em: Em, limit: number, perReceiver: ReceiverLimits, held?: readonly number[]): Promise<ClaimedDelivery[]>;
  /** Records attempts and moves their deliveries on; returns the ids this instance still held the lease of. */
  record(em: Em, attempts: readonly RecordedAttempt[], outcomes: readonly RecordedOutcome[]): Promise<Set<number>>;
}

/** What follows an attempt, decided by its policy. */
export interface RecordedOutcome {
  /** When the outcome was decided, by the delivery's clock. */
  at: Date;
  status: DeliveryStatus;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
}

/** Each receiver's cap of POSTs in flight: `of` for those with a limit of their own, `initial` for the rest. */
export interface ReceiverLimits {
  initial: number;
  of: Record<string, number>;
}
