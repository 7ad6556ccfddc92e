import type { RequestContext } from '../context.js';
import { AppError } from '../errors/app-error.js';
import type { PaymentEventName } from '../payments/payment-event.entity.js';
import type { WebhookDeliveryStatus } from './webhook.entity.js';
import { isWebhookId } from './webhook.service.js';

export interface WebhookAttemptView {
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface WebhookDeliveryView {
  id: number;
  webhookId: string;
  eventId: number;
  eventName: PaymentEventName;
  reference: string;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  lastStatusCode: number | null;
  createdAt: Date;
  /** Oldest first. */
  attempts: WebhookAttemptView[];
}

type Row = Record<string, unknown>;

// Attempts come in the same statement as their delivery, so a delivery and its attempts are one snapshot.
const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.event_id, e.name, e.reference, d.status, d.attempt_count, d.next_attempt_at, d.delivered_at,
  d.last_status_code, d.created_at,
  coalesce((select json_agg(json_build_object('attemptedAt', a.attempted_at, 'statusCode', a.status_code, 'durationMs', a.duration_ms,
    'error', a.error) order by a.id) from webhook_delivery_attempt a where a.delivery_id = d.id), '[]') as attempts`;

/** A page of one registration's deliveries, newest first by keyset (`beforeId`); undefined when the registration is not the caller's. */
export async function listWebhookDeliveries(
  ctx: RequestContext,
  webhookId: string,
  page: { limit: number; beforeId?: number },
): Promise<WebhookDeliveryView[] | undefined> {
  if (!isWebhookId(webhookId)) return undefined;
  const [owned] = await ctx.em.execute<Row[]>('select 1 from webhook where id = ? and msn = ?', [webhookId, ctx.msn]);
  if (!owned) return undefined;
  const rows = await ctx.em.execute<Row[]>(
    `select ${DELIVERY_COLUMNS} from webhook_delivery d join payment_event e on e.id = d.event_id
     where d.webhook_id = ? ${page.beforeId === undefined ? '' : 'and d.id < ?'} order by d.id desc limit ?`,
    page.beforeId === undefined ? [webhookId, page.limit] : [webhookId, page.beforeId, page.limit],
  );
  return rows.map(toDeliveryView);
}

/**
 * Makes a pending or failed delivery of the caller's due now. A POST already in flight keeps its lease, so the
 * reset never causes two at once; a delivered one is refused, its receiver already has it.
 */
export async function redeliverWebhookDelivery(ctx: RequestContext, deliveryId: number): Promise<WebhookDeliveryView> {
  const now = ctx.clock.now();
  const owned = `d.id = ? and exists (select 1 from webhook w where w.id = d.webhook_id and w.msn = ?)`;
  const [current] = Number.isSafeInteger(deliveryId)
    ? await ctx.em.execute<Row[]>(`select d.status from webhook_delivery d where ${owned}`, [deliveryId, ctx.msn])
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
  await ctx.em.execute(`update webhook_delivery d set status = 'pending', next_attempt_at = ? where ${owned} and d.status <> 'delivered'`, [
    now,
    deliveryId,
    ctx.msn,
  ]);
  const [row] = await ctx.em.execute<Row[]>(
    `select ${DELIVERY_COLUMNS} from webhook_delivery d join payment_event e on e.id = d.event_id where d.id = ?`,
    [deliveryId],
  );
  return toDeliveryView(row!);
}

function toDeliveryView(row: Row): WebhookDeliveryView {
  const status = row.status as WebhookDeliveryStatus;
  return {
    id: Number(row.id),
    webhookId: row.webhook_id as string,
    eventId: Number(row.event_id),
    eventName: row.name as PaymentEventName,
    reference: row.reference as string,
    status,
    attemptCount: Number(row.attempt_count),
    nextAttemptAt: status === 'pending' ? timestamp(row.next_attempt_at) : null,
    deliveredAt: row.delivered_at == null ? null : timestamp(row.delivered_at),
    lastStatusCode: nullableNumber(row.last_status_code),
    createdAt: timestamp(row.created_at),
    attempts: json<AttemptRow[]>(row.attempts).map((a) => ({
      attemptedAt: timestamp(a.attemptedAt),
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      error: a.error,
    })),
  };
}

interface AttemptRow {
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

const json = <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));
const timestamp = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const nullableNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
