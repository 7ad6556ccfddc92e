import type { Clock } from '../platform/clock.js';
import type { SalesUnitContext } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import type { WebhookDeliveryStatus } from './webhook.entity.js';
import { isWebhookId, webhookNotFound } from './webhook.service.js';
import { scoped } from '../platform/auth/tenancy.js';
import { EARLIER_DELIVERY_PENDING, EARLIER_EVENT_UNDISPATCHED } from '../platform/delivery/delivery-order.js';

export interface WebhookAttemptView {
  /** Orders a delivery's attempts; the attempts connection's cursor. */
  id: number;
  attemptedAt: Date;
  /** Written at claim time: no duration yet while in flight; an interrupted one never gets one. */
  state: 'in_flight' | 'completed' | 'interrupted';
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
}

export interface WebhookDeliveryView {
  id: number;
  webhookId: string;
  eventId: number;
  /** The event's public name, one of the registered webhook event names (e.g. `epayments.payment.captured.v1`). */
  eventName: string;
  streamType: string;
  streamId: string;
  /** The `reference` of the event's payload (a payment's, an order's): what the merchant knows the stream by. */
  reference: string;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  lastStatusCode: number | null;
  createdAt: Date;
  /** The registration's URL: where the delivery goes. */
  targetUrl: string;
  /** Pending, and held back until an earlier event of its stream is delivered (see delivery-order.ts). */
  waitingForEarlierEvent: boolean;
}

type Row = Record<string, unknown>;

// Attempts are read apart, a bounded page at a time (WebhookDeliveryAttempt pages): a delivery retried for 7 days
// has dozens of them, and a page of deliveries must not drag all of them along.
export const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.event_id, e.name, d.stream_type, d.stream_id, e.payload->>'reference' as reference, d.status,
  d.attempt_count, d.next_attempt_at, d.delivered_at, d.last_status_code, d.created_at,
  (select w.url from webhook w where w.id = d.webhook_id) as target_url,
  (d.status = 'pending' and (${EARLIER_DELIVERY_PENDING} or ${EARLIER_EVENT_UNDISPATCHED})) as waiting`;

/** One page of a registration's deliveries, newest first: `limit` rows with an id below `beforeId`. */
export interface DeliveryPageRequest {
  webhookId: string;
  limit: number;
  beforeId?: number;
  /** Only deliveries in these states (all when absent). */
  statuses?: WebhookDeliveryStatus[];
}

/** One page of a delivery's attempts, oldest first: `limit` rows with an id above `afterId`. */
export interface AttemptPageRequest {
  deliveryId: number;
  limit: number;
  afterId?: number;
}

/**
 * Pages of several registrations' deliveries in one statement (a lateral join per requested page), for the
 * graph's loader. The registrations are the caller's already: they come from a read scoped to its sales unit.
 */
export async function readDeliveryPages(em: Em, pages: readonly DeliveryPageRequest[]): Promise<WebhookDeliveryView[][]> {
  const keys = pages.map((page, ord) => ({
    ord,
    webhook_id: page.webhookId,
    before_id: page.beforeId ?? null,
    lim: page.limit,
    statuses: page.statuses?.length ? page.statuses : null,
  }));
  const rows = await em.execute<Row[]>(
    `select k.ord, d.* from jsonb_to_recordset(?::jsonb) as k(ord int, webhook_id uuid, before_id bigint, lim int, statuses text[])
     cross join lateral (
       select ${DELIVERY_COLUMNS} from delivery d join domain_event e on e.id = d.event_id
       -- A range of the registration's index (Migration20261205080000ReadIndexes), bounded by row comparisons that no other
       -- index serves: with webhook_id = ?, the planner walked the primary key down through every registration's deliveries.
       where (d.webhook_id, d.id) > (k.webhook_id, 0) and (d.webhook_id, d.id) < (k.webhook_id, coalesce(k.before_id, 9223372036854775807))
         and (k.statuses is null or d.status = any(k.statuses))
       order by d.webhook_id desc, d.id desc limit k.lim) d
     order by k.ord, d.id desc`,
    [JSON.stringify(keys)],
  );
  return groupByOrdinal(pages.length, rows, toDeliveryView);
}

/** Pages of several deliveries' attempts in one statement; the deliveries are the caller's already. */
export async function readAttemptPages(em: Em, pages: readonly AttemptPageRequest[]): Promise<WebhookAttemptView[][]> {
  const keys = pages.map((page, ord) => ({ ord, delivery_id: page.deliveryId, after_id: page.afterId ?? null, lim: page.limit }));
  const rows = await em.execute<Row[]>(
    `select k.ord, a.* from jsonb_to_recordset(?::jsonb) as k(ord int, delivery_id bigint, after_id bigint, lim int)
     cross join lateral (
       select a.id, a.attempted_at, a.status_code, a.duration_ms, a.error from delivery_attempt a
       where a.delivery_id = k.delivery_id and (k.after_id is null or a.id > k.after_id)
       order by a.id limit k.lim) a
     order by k.ord, a.id`,
    [JSON.stringify(keys)],
  );
  return groupByOrdinal(pages.length, rows, (row) => ({
    id: Number(row.id),
    attemptedAt: timestamp(row.attempted_at),
    statusCode: nullableNumber(row.status_code),
    state: row.duration_ms != null ? 'completed' : row.error != null ? 'interrupted' : 'in_flight',
    durationMs: nullableNumber(row.duration_ms),
    error: (row.error as string | null) ?? null,
  }));
}

function groupByOrdinal<T>(count: number, rows: Row[], map: (row: Row) => T): T[][] {
  const groups: T[][] = Array.from({ length: count }, () => []);
  for (const row of rows) groups[Number(row.ord)]!.push(map(row));
  return groups;
}

/** One of the caller's deliveries; another sales unit's is as unknown as one that never existed. */
export async function findWebhookDelivery(ctx: SalesUnitContext, deliveryId: number): Promise<WebhookDeliveryView | undefined> {
  if (!Number.isSafeInteger(deliveryId)) return undefined;
  const [row] = await ctx.em.execute<Row[]>(
    `select ${DELIVERY_COLUMNS} from delivery d join domain_event e on e.id = d.event_id
     where d.id = ? and exists (select 1 from webhook w where w.id = d.webhook_id and w.msn = ?)`,
    [deliveryId, scoped(ctx).msn],
  );
  return row ? toDeliveryView(row) : undefined;
}

/** A page of one registration's deliveries, newest first by keyset (`beforeId`); undefined when the registration is not the caller's. */
export async function listWebhookDeliveries(
  ctx: SalesUnitContext,
  webhookId: string,
  page: { limit: number; beforeId?: number; statuses?: WebhookDeliveryStatus[] },
): Promise<WebhookDeliveryView[] | undefined> {
  if (!isWebhookId(webhookId)) return undefined;
  const [owned] = await ctx.em.execute<Row[]>('select 1 from webhook where id = ? and msn = ?', [webhookId, scoped(ctx).msn]);
  if (!owned) return undefined;
  const [rows] = await readDeliveryPages(ctx.em, [{ webhookId, ...page }]);
  return rows;
}

/**
 * Makes a pending or failed delivery of the caller's due now. A POST already in flight keeps its lease, so the
 * reset never causes two at once; a delivered one is refused, its receiver already has it.
 *
 * "Now" is the platform's clock (`services.clock`), the one the webhook channel compares due times with, not the
 * request's: that is the sales unit's test clock, which may have been moved ahead, and a delivery made due at the
 * unit's time would wait until the platform's time caught up with it.
 */
export async function redeliverWebhookDelivery(
  ctx: SalesUnitContext,
  deliveryId: number,
  deliveryClock: Clock,
): Promise<WebhookDeliveryView> {
  const now = deliveryClock.now();
  const owned = `d.id = ? and exists (select 1 from webhook w where w.id = d.webhook_id and w.msn = ?)`;
  const [current] = Number.isSafeInteger(deliveryId)
    ? await ctx.em.execute<Row[]>(`select d.status from delivery d where ${owned}`, [deliveryId, scoped(ctx).msn])
    : [];
  if (!current)
    throw new AppError('WEBHOOK_DELIVERY_NOT_FOUND', 'No such webhook delivery for this Merchant-Serial-Number', [
      { name: 'deliveryId', reason: 'Unknown delivery' },
    ]);
  if (current.status === 'delivered') {
    throw new AppError('WEBHOOK_DELIVERY_ALREADY_DELIVERED', 'The receiver already acknowledged this delivery', [
      { name: 'deliveryId', reason: 'Already delivered' },
    ]);
  }
  await ctx.em.execute(`update delivery d set status = 'pending', next_attempt_at = ? where ${owned} and d.status <> 'delivered'`, [
    now,
    deliveryId,
    scoped(ctx).msn,
  ]);
  const [row] = await ctx.em.execute<Row[]>(
    `select ${DELIVERY_COLUMNS} from delivery d join domain_event e on e.id = d.event_id where d.id = ?`,
    [deliveryId],
  );
  return toDeliveryView(row!);
}

export function toDeliveryView(row: Row): WebhookDeliveryView {
  const status = row.status as WebhookDeliveryStatus;
  return {
    id: Number(row.id),
    webhookId: row.webhook_id as string,
    eventId: Number(row.event_id),
    eventName: row.name as string,
    streamType: row.stream_type as string,
    streamId: row.stream_id as string,
    reference: (row.reference as string | null) ?? '',
    status,
    attemptCount: Number(row.attempt_count),
    nextAttemptAt: status === 'pending' ? timestamp(row.next_attempt_at) : null,
    deliveredAt: row.delivered_at == null ? null : timestamp(row.delivered_at),
    lastStatusCode: nullableNumber(row.last_status_code),
    createdAt: timestamp(row.created_at),
    targetUrl: (row.target_url as string | null) ?? '',
    waitingForEarlierEvent: Boolean(row.waiting),
  };
}

const timestamp = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const nullableNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * Makes every failed delivery of one of the caller's registrations due now (the platform's clock, as above), each
 * with one more try; returns how many. Another sales unit's registration is unknown (WEBHOOK_NOT_FOUND).
 */
export async function redeliverFailedWebhookDeliveries(ctx: SalesUnitContext, webhookId: string, deliveryClock: Clock): Promise<number> {
  const [owned] = isWebhookId(webhookId)
    ? await ctx.em.execute<Row[]>('select 1 from webhook where id = ? and msn = ?', [webhookId, scoped(ctx).msn])
    : [];
  if (!owned) throw webhookNotFound(webhookId);
  const rows = await ctx.em.execute<Row[]>(
    `update delivery set status = 'pending', next_attempt_at = ? where webhook_id = ? and status = 'failed' returning id`,
    [deliveryClock.now(), webhookId],
  );
  return rows.length;
}
