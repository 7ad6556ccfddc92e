import type { Em } from '../platform/db/orm.js';
import { olderThanSql, type CreatedKey } from '../platform/paging/keyset.js';
import type { PaymentEvent } from './payment-event.entity.js';
import type { PaymentFields } from './payment.view.js';
import type { PaymentState } from './payment.transitions.js';
import { PAYMENT_OUTCOME_SQL, type PaymentOutcome } from './payment-outcome.js';
import { userDetailsProfileSql, type UserDetailsProfile } from '../user-profiles/user-details.js';

/**
 * Display reads as plain SQL through the ORM's own connection, mapped once. The benchmark profile showed entity
 * hydration costing more CPU than the query itself on these paths; nothing here is modified, so nothing needs the
 * unit of work. Every write still goes through entities, row locks and the unit of work.
 */
type Row = Record<string, unknown>;

const PAYMENT_COLUMNS = `id, msn, reference, psp_reference, state, currency, amount, authorized_amount, captured_amount, cancelled_amount,
  refunded_amount, payment_method_type, card_bin, user_flow, profile_sub, payment_description, metadata, approval_token, qr_format,
  created_at, expires_at, profile_scope, shipping_details, personal_data_removed_at, ${userDetailsProfileSql('payment.profile_sub')} as user_profile`;

export async function readPayment(em: Em, msn: string, reference: string): Promise<PaymentFields | undefined> {
  const [row] = await em.execute<Row[]>(`select ${PAYMENT_COLUMNS} from payment where msn = ? and reference = ? limit 1`, [msn, reference]);
  return row ? toPaymentFields(row) : undefined;
}

export async function readPaymentById(em: Em, msn: string, id: string): Promise<PaymentFields | undefined> {
  const [row] = await em.execute<Row[]>(`select ${PAYMENT_COLUMNS} from payment where msn = ? and id = ? limit 1`, [msn, id]);
  return row ? toPaymentFields(row) : undefined;
}

/** The sales unit's payments with these ids, in one statement (a page of rows that link to their payments). */
export async function readPaymentsByIds(em: Em, msn: string, ids: readonly string[]): Promise<PaymentFields[]> {
  if (ids.length === 0) return [];
  const rows = await em.execute<Row[]>(
    `select ${PAYMENT_COLUMNS} from payment where msn = ? and id in (${ids.map(() => '?').join(', ')})`,
    [msn, ...ids],
  );
  return rows.map(toPaymentFields);
}

export interface PaymentPageQuery {
  msn: string;
  /** Rows to fetch (page size plus one, to learn whether there is a next page). */
  limit: number;
  /** States as callers see them at `now`: an overdue CREATED payment counts as EXPIRED (see payment-expiry.ts). */
  states?: PaymentState[];
  now: Date;
  /** Keyset position: payments strictly older than this (createdAt, id). */
  before?: CreatedKey;
  /** Outcomes as of `now` (see payment-outcome.ts). */
  outcomes?: PaymentOutcome[];
  referencePrefix?: string;
  amountFrom?: number;
  amountTo?: number;
  createdFrom?: Date;
  createdBefore?: Date;
}

/** A LIKE pattern that matches exactly the strings starting with `prefix`. */
const startsWith = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Newest first, by keyset (never OFFSET). */
export async function readPayments(em: Em, query: PaymentPageQuery): Promise<PaymentFields[]> {
  const where = ['msn = ?'];
  const params: unknown[] = [query.msn];
  if (query.states?.length) {
    const stored = query.states.filter((s) => s !== 'CREATED');
    const either = stored.length ? [`state in (${stored.map(() => '?').join(', ')})`] : [];
    params.push(...stored);
    if (query.states.includes('CREATED')) {
      either.push(`(state = 'CREATED' and expires_at > ?)`);
      params.push(query.now);
    }
    if (query.states.includes('EXPIRED')) {
      either.push(`(state = 'CREATED' and expires_at <= ?)`);
      params.push(query.now);
    }
    where.push(`(${either.join(' or ')})`);
  }
  if (query.outcomes?.length) {
    where.push(`(${PAYMENT_OUTCOME_SQL}) in (${query.outcomes.map(() => '?').join(', ')})`);
    params.push(query.now, ...query.outcomes);
  }
  if (query.referencePrefix) {
    where.push(`reference like ? escape '\\'`);
    params.push(startsWith(query.referencePrefix));
  }
  if (query.amountFrom !== undefined) {
    where.push('amount >= ?');
    params.push(query.amountFrom);
  }
  if (query.amountTo !== undefined) {
    where.push('amount <= ?');
    params.push(query.amountTo);
  }
  if (query.createdFrom) {
    where.push('created_at >= ?');
    params.push(query.createdFrom);
  }
  if (query.createdBefore) {
    where.push('created_at < ?');
    params.push(query.createdBefore);
  }
  if (query.before) {
    const older = olderThanSql(query.before);
    where.push(older.sql);
    params.push(...older.params);
  }
  params.push(query.limit);
  const rows = await em.execute<Row[]>(
    `select ${PAYMENT_COLUMNS} from payment where ${where.join(' and ')} order by created_at desc, id desc limit ?`,
    params,
  );
  return rows.map(toPaymentFields);
}

export async function readPaymentEvents(em: Em, paymentIds: readonly string[]): Promise<PaymentEvent[]> {
  if (paymentIds.length === 0) return [];
  const rows = await em.execute<Row[]>(
    `select * from payment_event where payment_id in (${paymentIds.map(() => '?').join(', ')}) order by id`,
    [...paymentIds],
  );
  return rows.map(toPaymentEvent);
}

/**
 * The first `limit` events of each payment, oldest first, in one statement for any number of payments: a graph
 * page of payments asks for their first events together.
 */
export async function readFirstPaymentEvents(em: Em, paymentIds: readonly string[], limit: number): Promise<PaymentEvent[]> {
  if (paymentIds.length === 0) return [];
  const rows = await em.execute<Row[]>(
    `select * from (
       select payment_event.*, row_number() over (partition by payment_id order by id) as position
       from payment_event where payment_id in (${paymentIds.map(() => '?').join(', ')})
     ) ranked where position <= ? order by payment_id, id`,
    [...paymentIds, limit],
  );
  return rows.map(toPaymentEvent);
}

/** Up to `limit` events of one payment after the event `afterId`, by keyset (never OFFSET). */
export async function readPaymentEventsAfter(em: Em, paymentId: string, afterId: number, limit: number): Promise<PaymentEvent[]> {
  const rows = await em.execute<Row[]>('select * from payment_event where payment_id = ? and id > ? order by id limit ?', [
    paymentId,
    afterId,
    limit,
  ]);
  return rows.map(toPaymentEvent);
}

export async function readPaymentEvent(em: Em, msn: string, id: number): Promise<PaymentEvent | undefined> {
  const [row] = await em.execute<Row[]>('select * from payment_event where msn = ? and id = ? limit 1', [msn, id]);
  return row ? toPaymentEvent(row) : undefined;
}

// PostgreSQL's driver gives bigint as a string and PGlite as a number; both become numbers here.
const amount = (value: unknown): number => Number(value);
const timestamp = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const json = <T>(value: unknown): T | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? (JSON.parse(value) as T) : (value as T);

function toPaymentFields(row: Row): PaymentFields {
  return {
    id: row.id as string,
    msn: row.msn as string,
    reference: row.reference as string,
    pspReference: row.psp_reference as string,
    state: row.state as PaymentFields['state'],
    currency: row.currency as PaymentFields['currency'],
    amount: amount(row.amount),
    authorizedAmount: amount(row.authorized_amount),
    capturedAmount: amount(row.captured_amount),
    cancelledAmount: amount(row.cancelled_amount),
    refundedAmount: amount(row.refunded_amount),
    paymentMethodType: row.payment_method_type as PaymentFields['paymentMethodType'],
    cardBin: (row.card_bin as string | null) ?? null,
    userFlow: row.user_flow as PaymentFields['userFlow'],
    profileSub: (row.profile_sub as string | null) ?? null,
    paymentDescription: (row.payment_description as string | null) ?? null,
    metadata: json<Record<string, string>>(row.metadata),
    profileScope: (row.profile_scope as string | null) ?? null,
    shippingDetails: json<PaymentFields['shippingDetails'] & object>(row.shipping_details),
    userProfile: json<UserDetailsProfile>(row.user_profile),
    personalDataRemovedAt: row.personal_data_removed_at ? timestamp(row.personal_data_removed_at) : null,
    approvalToken: row.approval_token as string,
    qrFormat: (row.qr_format as PaymentFields['qrFormat']) ?? null,
    createdAt: timestamp(row.created_at),
    expiresAt: timestamp(row.expires_at),
  };
}

export function toPaymentEvent(row: Row): PaymentEvent {
  return {
    id: amount(row.id),
    paymentId: row.payment_id as string,
    msn: row.msn as string,
    reference: row.reference as string,
    pspReference: row.psp_reference as string,
    name: row.name as PaymentEvent['name'],
    currency: row.currency as PaymentEvent['currency'],
    amount: amount(row.amount),
    idempotencyKey: (row.idempotency_key as string | null) ?? null,
    success: Boolean(row.success),
    occurredAt: timestamp(row.occurred_at),
  } as PaymentEvent;
}

/**
 * The newest payments of each of several sales units, `limit` per unit, optionally before a keyset position, in one
 * statement: a graph page of sales units asks for their payments together.
 */
export async function readPaymentsOfSalesUnits(
  em: Em,
  msns: readonly string[],
  limit: number,
  before: CreatedKey | undefined,
): Promise<PaymentFields[]> {
  if (msns.length === 0) return [];
  const params: unknown[] = [...msns];
  let after = '';
  if (before) {
    const older = olderThanSql(before);
    after = `and ${older.sql}`;
    params.push(...older.params);
  }
  params.push(limit);
  const rows = await em.execute<Row[]>(
    `select * from (
       select ${PAYMENT_COLUMNS}, row_number() over (partition by msn order by created_at desc, id desc) as position
       from payment where msn in (${msns.map(() => '?').join(', ')}) ${after}
     ) ranked where position <= ? order by msn, created_at desc, id desc`,
    params,
  );
  return rows.map(toPaymentFields);
}
