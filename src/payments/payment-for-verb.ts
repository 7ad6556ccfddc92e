import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import type { NewEvent } from '../platform/events/new-event.js';
import type { IdempotentRequest } from '../platform/idempotency/idempotency-gate.js';
import {
  runOperation,
  type Decision,
  type OperationContext,
  type OperationRead,
  type OperationWrites,
} from '../platform/db/run-operation.js';
import type { PaymentEventName } from './payment-event.entity.js';
import { PAYMENT_STREAM, paymentOutboxName, type PaymentEventPayload } from './payment-event.types.js';
import { expiry, isOverdue } from './payment-expiry.js';
import { Payment } from './payment.entity.js';
import { timelineSql, type Timeline } from '../platform/test-clocks.js';

/** A payment as a verb (capture, refund, cancel, approve, reject, a checkout's step) takes it. */
export interface PaymentForVerb {
  payment: Payment;
  /** The payment was overdue and has just been expired: that is written even when the verb then refuses. */
  expiredNow: boolean;
  /** The time of the payment's sales unit the verb runs at. */
  now: Date;
  /**
   * The payment's event that already carries the verb's idempotency key (`keyInLog`), when there is one: the key was
   * used on this payment before, and its record may have been pruned since (README, Data lifecycle).
   */
  keyEvent?: PaymentEventPayload;
}

/** A time, or how to tell it from the sales unit (a page knows the payment, so its unit's clock, only once it is read). */
export type VerbTime = Date | ((msn: string) => Date);

/** What a verb decided: its value and events, or a refusal; the payment's changes are written whatever it decided. */
export type VerbDecision<T> = { value: T; events?: readonly NewEvent[] } | { refusal: AppError };

export interface PaymentVerb<T, M> {
  /** The idempotency key of a merchant's verb; a page's or checkout's step has none. */
  key?: IdempotentRequest;
  /**
   * Look for the key in the payment's own events of these names, in the read's statement: a modification whose key
   * is in its payment's event log is answered from that event, never run again, whatever the key's record window.
   * Only a payment created before `createdBefore` (since when every key record is still kept) is looked at: every
   * key of a younger one still has its record, and its log is not read at all.
   */
  keyInLog?: { names: readonly PaymentEventName[]; createdBefore: Date };
  payment: PaymentKey;
  time: VerbTime;
  /** The events the verb may record: their projectors' reads join the payment's (a capture's ledger terms). */
  mayRecord: readonly PaymentEventName[];
  /** Reads that need the payment (a test user, a session), before the decision: ORM finds in the caller's transaction. */
  readMore?: (taken: PaymentForVerb | undefined, em: Em) => Promise<M>;
  /** Pure: changes the payment in memory and says what it recorded; undefined when there is no such payment. */
  decide(taken: PaymentForVerb | undefined, more: M): VerbDecision<T>;
}

/**
 * The one way to lock and write a payment, through the write runner (run-operation.ts): the payment locked, expired
 * first when overdue exactly as the expiry job would (so the verb sees what the job would have left, and the expiry
 * commits even when the verb refuses), the verb's decision, then the payment's changed columns and its events.
 */
export function runPaymentVerb<T, M = undefined>(ctx: OperationContext, verb: PaymentVerb<T, M>): Promise<T> {
  let taken: PaymentForVerb | undefined;
  let expired: NewEvent | undefined;
  const take = (found: Payment | undefined, row: Record<string, unknown>) => {
    if (!found || taken?.payment === found) return taken;
    const now = typeof verb.time === 'function' ? verb.time(found.msn) : verb.time;
    const overdue = isOverdue(found, now) ? expiry(found, now) : undefined;
    const keyEvent = jsonOf(row.key_event) as PaymentEventPayload | undefined;
    taken = { payment: found, expiredNow: overdue !== undefined, now, ...(keyEvent ? { keyEvent } : {}) };
    expired = overdue;
    return taken;
  };
  return runOperation<T, Payment, M>(ctx, {
    key: verb.key,
    read: lockedPayment(verb.payment, verb.key && verb.keyInLog ? { key: verb.key.key, ...verb.keyInLog } : undefined),
    // Every verb may find its payment overdue and expire it (EXPIRED, which nothing projects).
    mayRecord: {
      streamType: PAYMENT_STREAM,
      names: [...verb.mayRecord, 'EXPIRED' as const].map(paymentOutboxName),
      msn: 'msn' in verb.payment ? verb.payment.msn : '',
    },
    readMore: verb.readMore && (({ found, row }, em) => verb.readMore!(take(found[0], row), em)),
    decide({ found, row }, more): Decision<T> {
      const payment = take(found[0], row);
      const written: OperationWrites = { changed: payment ? [payment.payment] : [], events: expired ? [expired] : [] };
      let decision: VerbDecision<T>;
      try {
        decision = verb.decide(payment, more);
      } catch (error) {
        // The expiry stands though the verb refuses: the refusal is written with it.
        if (!expired || !(error instanceof AppError)) throw error;
        return { ...written, refusal: error };
      }
      if ('refusal' in decision) return { ...written, refusal: decision.refusal };
      return { ...written, events: [...written.events!, ...(decision.events ?? [])], value: decision.value };
    },
  });
}

export function paymentNotFound(reference: string): AppError {
  return new AppError('PAYMENT_NOT_FOUND', `No payment with reference ${reference}`, [{ name: 'reference', reason: 'Not found' }]);
}

/** How a write names its payment: a merchant by its sales unit and reference, the wallet user by the approval token. */
export type PaymentKey = { msn: string; reference: string } | { approvalToken: string };

/**
 * The one locking read of a payment for a write (run-operation.ts): locked only when the key's gate lets the write run
 * (`go`), after the key's lock, until the write's commit.
 */
export function lockedPayment(
  key: PaymentKey,
  keyInLog?: { key: string; names: readonly PaymentEventName[]; createdBefore: Date },
): OperationRead<Payment> {
  const read =
    'approvalToken' in key
      ? lockedPayments('approval_token = ?', 'limit 1 for update', [key.approvalToken])
      : lockedPayments('msn = ? and reference = ?', 'limit 1 for update', [key.msn, key.reference]);
  if (!keyInLog || keyInLog.names.length === 0) return read;
  // The log of a payment older than the key window, read by its stream index in the read's statement: no round trip of
  // its own. Walking every payment's log on every modification cost the bench's captures, 64 payments captured round
  // robin whose logs grew by the hundred, 0.4 ms of the database's CPU each (bench/README.md).
  return {
    ...read,
    ctes: [
      ...read.ctes,
      `verb_key_event as materialized (select e.payload from verb_payment vp join domain_event e
         on e.stream_type = ? and e.stream_id = vp.id::text
         where vp.created_at < ? and e.name in (${keyInLog.names.map(() => '?').join(', ')}) and e.payload->>'idempotencyKey' = ?
         order by e.id limit 1)`,
    ],
    params: [...read.params, PAYMENT_STREAM, keyInLog.createdBefore, ...keyInLog.names.map(paymentOutboxName), keyInLog.key],
    columns: `${read.columns}, (select payload from verb_key_event) as key_event`,
  };
}

/** A jsonb column as an object: PGlite parses it, some drivers hand it over as text. */
function jsonOf(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/**
 * The CREATED payments of a timeline overdue at its time, oldest first, at most `limit`, locked, and skipped when
 * another instance holds them: what the expiry job expires.
 */
export function lockedOverduePayments(timeline: Timeline, limit: number): OperationRead<Payment> {
  const units = timelineSql(timeline, 'msn');
  return lockedPayments(
    `state = 'CREATED' and expires_at <= ? and ${units.sql}`,
    `order by expires_at limit ${Number(limit)} for update skip locked`,
    [timeline.now, ...units.params],
  );
}

function lockedPayments(where: string, then: string, params: readonly unknown[]): OperationRead<Payment> {
  return {
    ctes: [`verb_payment as materialized (select * from payment where ${where} and exists (select 1 from go) ${then})`],
    params,
    columns: 'verb_payment.*',
    joins: 'left join verb_payment on true',
    entity: Payment,
  };
}
