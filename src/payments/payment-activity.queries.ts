import { scoped } from '../platform/auth/tenancy.js';
import type { Clock } from '../platform/clock.js';
import type { RequestContext, SalesUnitContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { PaymentEvent } from './payment-event.entity.js';
import type { Currency } from './payment.entity.js';
import { toPaymentEvent } from './payment.read-model.js';
import type { PaymentState } from './payment.transitions.js';
import { PAYMENT_OUTCOME_SQL, type PaymentOutcome } from './payment-outcome.js';

/**
 * What an operations view reads of a sales unit's activity: recent events, totals and event rates. Every read
 * is bound to the caller's sales unit (`scoped(ctx).msn`).
 */

type Row = Record<string, unknown>;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A period's start, refused when it is not a date or lies further back than `maxDays` (the reads stay bounded) on
 * `timeline`'s clock: the clock the period's rows are stamped with (a request's: its sales unit's).
 */
export function periodStart(timeline: { clock: Clock }, since: string, maxDays: number, field = 'since'): Date {
  const date = new Date(since);
  const now = timeline.clock.now().getTime();
  if (Number.isNaN(date.getTime()) || date.getTime() < now - maxDays * DAY_MS) {
    throw AppError.validation([{ name: field, reason: `A date-time within the last ${maxDays} day(s)` }]);
  }
  return date;
}

/** The sales unit's events, newest first: `limit` rows with an id below `beforeId`. */
export async function listRecentPaymentEvents(ctx: SalesUnitContext, page: { limit: number; beforeId?: number }): Promise<PaymentEvent[]> {
  const rows = await ctx.em.execute<Row[]>(
    'select * from payment_event where msn = ? and (?::bigint is null or id < ?::bigint) order by id desc limit ?',
    [scoped(ctx).msn, page.beforeId ?? null, page.beforeId ?? null, page.limit],
  );
  return rows.map(toPaymentEvent);
}

/** A period's start when the caller gives none: the start of the unit clock's day (UTC), or `hours` back. */
export function defaultPeriodStart(ctx: RequestContext, back: 'day' | { hours: number }): Date {
  const now = ctx.clock.now();
  if (back === 'day') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return new Date(now.getTime() - back.hours * 60 * 60 * 1000);
}

export interface PaymentTotals {
  since: Date;
  asOf: Date;
  byState: { state: PaymentState; count: number }[];
  byOutcome: { outcome: PaymentOutcome; count: number }[];
  captured: { currency: Currency; value: number }[];
  refunded: { currency: Currency; value: number }[];
}

/** Payments created since `since` by their state, and successful captures and refunds since then per currency. */
export async function readPaymentTotals(ctx: SalesUnitContext, since: Date): Promise<PaymentTotals> {
  const now = ctx.clock.now();
  // One statement for both counts: a payment past its expiry that no job has expired yet counts as EXPIRED.
  const counts = await ctx.em.execute<Row[]>(
    `select case when state = 'CREATED' and expires_at <= ? then 'EXPIRED' else state end as state,
       ${PAYMENT_OUTCOME_SQL} as outcome, count(*) as count
     from payment where msn = ? and created_at >= ? group by 1, 2`,
    [now, now, scoped(ctx).msn, since],
  );
  const tally = <K extends string>(key: 'state' | 'outcome') => {
    const totals = new Map<K, number>();
    for (const row of counts) totals.set(row[key] as K, (totals.get(row[key] as K) ?? 0) + Number(row.count));
    return [...totals].sort(([a], [b]) => a.localeCompare(b));
  };
  const sums = await ctx.em.execute<Row[]>(
    `select name, currency, sum(amount) as value from payment_event
     where msn = ? and occurred_at >= ? and success and name in ('CAPTURED', 'REFUNDED')
     group by name, currency order by currency`,
    [scoped(ctx).msn, since],
  );
  const sumsOf = (name: string) =>
    sums.filter((row) => row.name === name).map((row) => ({ currency: row.currency as Currency, value: Number(row.value) }));
  return {
    since,
    asOf: now,
    byState: tally<PaymentState>('state').map(([state, count]) => ({ state, count })),
    byOutcome: tally<PaymentOutcome>('outcome').map(([outcome, count]) => ({ outcome, count })),
    captured: sumsOf('CAPTURED'),
    refunded: sumsOf('REFUNDED'),
  };
}

/** Events per minute since `since`, oldest first; minutes without events are absent. */
export async function readPaymentEventsPerMinute(ctx: SalesUnitContext, since: Date): Promise<{ minute: Date; count: number }[]> {
  const rows = await ctx.em.execute<Row[]>(
    `select date_trunc('minute', occurred_at) as minute, count(*) as count from payment_event
     where msn = ? and occurred_at >= ? group by 1 order by 1`,
    [scoped(ctx).msn, since],
  );
  return rows.map((row) => ({ minute: row.minute instanceof Date ? row.minute : new Date(String(row.minute)), count: Number(row.count) }));
}
