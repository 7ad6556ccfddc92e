import type { AttentionThresholds } from '../config.js';
import { scoped } from '../platform/auth/tenancy.js';
import type { SalesUnitContext } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { WEBHOOK_KIND } from '../platform/delivery/delivery.entity.js';
import { olderThanSql, type CreatedKey } from '../platform/paging/keyset.js';
import { DELIVERY_COLUMNS, toDeliveryView, type WebhookDeliveryView } from './webhook-delivery.service.js';
import { paymentOutboxName, PAYMENT_STREAM } from '../payments/payment-event.types.js';
import { readPaymentsByIds } from '../payments/payment.read-model.js';
import { toPaymentViewAt, type PaymentView } from '../payments/payment.view.js';

/**
 * Why a payment needs someone to look at it: the merchant's order waits for a webhook that has not arrived, or the
 * payment is past its expiry and nobody has expired it (so no EXPIRED webhook went out either).
 */
export type PaymentAttentionReason = 'AUTHORIZED_WEBHOOK_NOT_DELIVERED' | 'CAPTURE_WEBHOOK_NOT_DELIVERED' | 'EXPIRY_OVERDUE';

export interface PaymentAttentionCause {
  reason: PaymentAttentionReason;
  /** The event's time (webhook reasons) or the payment's expiry (EXPIRY_OVERDUE), on the sales unit's clock. */
  since: Date;
  /** The delivery not yet acknowledged; null for EXPIRY_OVERDUE. */
  delivery: WebhookDeliveryView | null;
}

/** One payment of the page and every cause that holds for it, oldest first. */
export interface PaymentNeedingAttention {
  /** The payment's id and creation time: the connection's keyset (newest first, as every payment list). */
  id: string;
  createdAt: Date;
  payment: PaymentView;
  causes: PaymentAttentionCause[];
}

const AUTHORIZED = paymentOutboxName('AUTHORIZED');
const CAPTURED = paymentOutboxName('CAPTURED');

/** Where the causes are looked for: one sales unit at one time, or every unit each at its own time. */
interface CauseScope {
  /** SQL of the unit's "now" for a row whose MSN is in `msnColumn`, and its parameters. */
  unitNow(msnColumn: string): { sql: string; params: unknown[] };
  /** SQL (and parameters) of the latest "now" of any unit in scope: what bounds the expiry index's range. */
  latestNow: { sql: string; params: unknown[] };
  /** SQL (and parameters) that keeps the units in scope. */
  units(msnColumn: string): { sql: string; params: unknown[] };
}

/**
 * The three reasons as one row source (payment_id, cause_event, since, delivery_id): webhook deliveries of
 * AUTHORIZED and CAPTURED events not acknowledged (pending: retrying, or held back behind an earlier event of the
 * payment; or failed) for longer than their thresholds after the event, and CREATED payments past their expiry by
 * longer than the grace. The expiry condition is the expiry job's own (state CREATED, `expires_at` past on the unit's
 * clock), so a payment shows exactly while the job is behind on it. An event not yet fanned out has no delivery
 * yet: `paygraph_outbox_lag_seconds` reports that. An AUTHORIZED event's payment is AUTHORIZED for good (captures,
 * refunds and cancels change only its aggregate), so the event names the reason.
 *
 * The webhook reasons start from the partial index of undelivered webhook deliveries (on a predicate no statistics
 * size: Migration20261205080000ReadIndexes), the expiry from the pending expiry index: both stay small however
 * many payments a unit has.
 */
function causesSql(scope: CauseScope, t: AttentionThresholds): { sql: string; params: unknown[] } {
  const older = (column: string, msnColumn: string, thresholdMs: number) => {
    const now = scope.unitNow(msnColumn);
    return { sql: `${column} <= ${now.sql} - ? * interval '1 millisecond'`, params: [...now.params, thresholdMs] };
  };
  const eventUnits = scope.units('e.msn');
  const authorized = older('e.occurred_at', 'e.msn', t.authorizedWebhookMs);
  const captured = older('e.occurred_at', 'e.msn', t.captureWebhookMs);
  const paymentUnits = scope.units('p.msn');
  const overdue = older('p.expires_at', 'p.msn', t.expiryOverdueMs);
  return {
    sql: `
    select e.stream_id::uuid as payment_id, e.name as cause_event, e.occurred_at as since, d.id as delivery_id
    from delivery d cross join lateral (
      -- offset 0 keeps each event a probe by primary key: causes sized by a share of the deliveries made the planner
      -- hash every event once deliveries outnumbered events (several receivers).
      select e.stream_id, e.name, e.occurred_at, e.msn, e.stream_type from domain_event e where e.id = d.event_id offset 0
    ) e
    -- Undelivered named as its index's predicate, which no statistics size (Migration20261205080000ReadIndexes).
    where d.kind = '${WEBHOOK_KIND}' and lower(d.status) in ('pending', 'failed') and d.event_id > 0 and e.stream_type = '${PAYMENT_STREAM}' and ${eventUnits.sql}
      and ((e.name = '${AUTHORIZED}' and ${authorized.sql}) or (e.name = '${CAPTURED}' and ${captured.sql}))
    union all
    select p.id, null, p.expires_at, null from payment p
    where p.state = 'CREATED' and ${paymentUnits.sql} and p.expires_at <= ${scope.latestNow.sql} and ${overdue.sql}`,
    params: [
      ...eventUnits.params,
      ...authorized.params,
      ...captured.params,
      ...paymentUnits.params,
      ...scope.latestNow.params,
      ...overdue.params,
    ],
  };
}

const reasonOf = (causeEvent: unknown): PaymentAttentionReason =>
  causeEvent === AUTHORIZED
    ? 'AUTHORIZED_WEBHOOK_NOT_DELIVERED'
    : causeEvent === CAPTURED
      ? 'CAPTURE_WEBHOOK_NOT_DELIVERED'
      : 'EXPIRY_OVERDUE';

type Row = Record<string, unknown>;

/**
 * A page of the caller's sales unit's payments that need attention, newest first by keyset (never OFFSET), with
 * their causes and the deliveries to redeliver: two statements for any page size (the causes, then the payments).
 */
export async function listPaymentsNeedingAttention(
  ctx: SalesUnitContext,
  page: { limit: number; before?: CreatedKey },
): Promise<PaymentNeedingAttention[]> {
  const msn = scoped(ctx).msn;
  const now = ctx.clock.now();
  const older = page.before ? olderThanSql(page.before) : undefined;
  const at = { sql: '?::timestamptz', params: [now] };
  const causes = causesSql(
    { unitNow: () => at, latestNow: at, units: (column) => ({ sql: `${column} = ?`, params: [msn] }) },
    ctx.config.attention,
  );
  const rows = await ctx.em.execute<Row[]>(
    `with causes as (${causes.sql}),
     page as (
       select id, created_at from payment
       -- By primary key from the causes, whatever their estimate: as a semi-join, stale statistics read the whole table.
       where msn = ? and id = any(array(select payment_id from causes)) ${older ? `and ${older.sql}` : ''}
       order by created_at desc, id desc limit ?)
     select page.id as payment_id, page.created_at as payment_created_at, c.cause_event, c.since as cause_since, dv.*
     from page join causes c on c.payment_id = page.id
     left join lateral (
       select ${DELIVERY_COLUMNS} from delivery d join domain_event e on e.id = d.event_id where d.id = c.delivery_id) dv on true
     order by page.created_at desc, page.id desc, c.since, c.delivery_id`,
    [...causes.params, msn, ...(older?.params ?? []), page.limit],
  );
  const pages = new Map<string, { createdAt: Date; causes: PaymentAttentionCause[] }>();
  for (const row of rows) {
    const id = row.payment_id as string;
    const entry = pages.get(id) ?? { createdAt: timestamp(row.payment_created_at), causes: [] };
    pages.set(id, entry);
    entry.causes.push({
      reason: reasonOf(row.cause_event),
      since: timestamp(row.cause_since),
      delivery: row.cause_event === null ? null : toDeliveryView(row),
    });
  }
  const payments = new Map((await readPaymentsByIds(ctx.em, msn, [...pages.keys()])).map((p) => [p.id, p]));
  return [...pages].flatMap(([id, entry]) => {
    const payment = payments.get(id);
    // Only a payment deleted between the two statements is missing; payments are never deleted.
    return payment ? [{ id, createdAt: entry.createdAt, payment: toPaymentViewAt(payment, ctx.config, now), causes: entry.causes }] : [];
  });
}

export type AttentionCounts = Record<PaymentAttentionReason, number>;

/**
 * How many payments of every sales unit need attention, by reason, each unit at its own time (the service's clock
 * plus its test clock's offset, read from the database): one statement, the same answer on every instance.
 */
export async function countPaymentsNeedingAttention(em: Em, now: Date, thresholds: AttentionThresholds): Promise<AttentionCounts> {
  // A unit whose test clock never moved has no row: its time is the service's. Production has none at all.
  const causes = causesSql(
    {
      unitNow: (column) => ({
        sql: `(?::timestamptz + coalesce((select tc.offset_ms from test_clock tc where tc.msn = ${column}), 0) * interval '1 millisecond')`,
        params: [now],
      }),
      latestNow: {
        sql: `(?::timestamptz + coalesce((select max(tc.offset_ms) from test_clock tc), 0) * interval '1 millisecond')`,
        params: [now],
      },
      units: () => ({ sql: 'true', params: [] }),
    },
    thresholds,
  );
  const rows = await em.execute<Row[]>(
    `select cause_event, count(distinct payment_id) as payments from (${causes.sql}) causes group by cause_event`,
    causes.params,
  );
  const counts: AttentionCounts = { AUTHORIZED_WEBHOOK_NOT_DELIVERED: 0, CAPTURE_WEBHOOK_NOT_DELIVERED: 0, EXPIRY_OVERDUE: 0 };
  for (const row of rows) counts[reasonOf(row.cause_event)] = Number(row.payments);
  return counts;
}

const timestamp = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
