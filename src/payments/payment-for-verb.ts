import type { EntityDictionary } from '@mikro-orm/core';
import { entityColumns, untrackedEntity } from '../platform/db/entity-columns.js';
import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import type { NewEvent } from '../platform/events/record-event.js';
import { expireIfOverdue, expiry, isOverdue } from './payment-expiry.js';
import { Payment } from './payment.entity.js';

const BY_REFERENCE = 'select * from payment where msn = ? and reference = ?';

/** How a verb names its payment: a merchant by its sales unit and reference, the wallet user by the approval token. */
export type PaymentKey = { msn: string; reference: string } | { approvalToken: string };

export interface PaymentForVerb {
  payment: Payment;
  /** The payment was overdue and has just been expired: the caller commits that even when it then refuses. */
  expiredNow: boolean;
  /** The time of the payment's sales unit the verb ran at. */
  now: Date;
}

/** A time, or how to tell it from the sales unit (a page knows the payment, so its unit's clock, only once it is read). */
export type VerbTime = Date | ((msn: string) => Date);

/**
 * The one way a verb (capture, refund, cancel, approve, reject) takes its payment: locked for the rest of the
 * transaction, and expired first when overdue, exactly as the expiry job would, so the verb sees what the job would
 * have left. Undefined when there is no such payment.
 */
export async function lockPaymentForVerb(em: Em, key: PaymentKey, time: VerbTime): Promise<PaymentForVerb | undefined> {
  // One plain locking read, then the row joins the unit of work like any loaded entity. The ORM's query builder
  // for the same statement cost more CPU than the database spent on it (the hot path of every modification).
  const [row] =
    'approvalToken' in key
      ? await em.execute<EntityDictionary<Payment>[]>('select * from payment where approval_token = ? limit 1 for update', [
          key.approvalToken,
        ])
      : await em.execute<EntityDictionary<Payment>[]>(`${BY_REFERENCE} limit 1 for update`, [key.msn, key.reference]);
  if (!row) return undefined;
  const payment = em.map(Payment, row);
  const now = typeof time === 'function' ? time(payment.msn) : time;
  return { payment, expiredNow: expireIfOverdue(em, payment, now), now };
}

/**
 * The same locking read of a merchant's payment as a CTE, `verb_payment`, of the statement that takes an idempotency
 * key's gate (idempotent-read-write.ts): locked only when the gate lets the verb run (`go`), after the key's lock, as
 * in the transaction it replaces. Its columns join the statement's row (`columns`, `join`), taken by `paymentForVerbOfRow`.
 */
export function lockedPaymentRead(msn: string, reference: string): { cte: string; params: unknown[]; columns: string; join: string } {
  return {
    cte: `verb_payment as materialized (${BY_REFERENCE} and exists (select 1 from go) limit 1 for update)`,
    params: [msn, reference],
    columns: 'verb_payment.*',
    join: 'left join verb_payment on true',
  };
}

/** A payment taken from `lockedPaymentRead`'s row, as its verb sees it, without the unit of work. */
export interface PaymentForVerbOfRow {
  payment: Payment;
  /** The payment as read, before the verb (and an expiry) changed it: what its update compares with. */
  before: Payment;
  /** The EXPIRED event of an overdue payment expired just now, for the caller to write even when the verb refuses. */
  expiry: NewEvent | undefined;
}

/**
 * `lockOwnPaymentForVerb` for a payment read by `lockedPaymentRead`: the payment of the row, or 404, expired first
 * when overdue exactly as the expiry job would; its changes are the caller's to write (by SQL, not a flush).
 */
export function paymentForVerbOfRow(em: Em, reference: string, row: Record<string, unknown>, now: Date): PaymentForVerbOfRow {
  if (row.id === null || row.id === undefined) throw paymentNotFound(reference);
  const meta = em.getMetadata().get(Payment);
  const columns: Record<string, unknown> = {};
  for (const { column } of entityColumns(meta)) columns[column] = row[column];
  const payment = untrackedEntity(em, meta, columns);
  const before = Object.fromEntries(entityColumns(meta).map(({ field }) => [field, payment[field]])) as Payment;
  return { payment, before, expiry: isOverdue(payment, now) ? expiry(payment, now) : undefined };
}

/** The merchant's own payment for a verb, or 404: a payment of another sales unit is indistinguishable from a missing one. */
export async function lockOwnPaymentForVerb(em: Em, msn: string, reference: string, now: Date): Promise<PaymentForVerb> {
  const found = await lockPaymentForVerb(em, { msn, reference }, now);
  if (!found) throw paymentNotFound(reference);
  return found;
}

export function paymentNotFound(reference: string): AppError {
  return new AppError('PAYMENT_NOT_FOUND', `No payment with reference ${reference}`, [{ name: 'reference', reason: 'Not found' }]);
}
