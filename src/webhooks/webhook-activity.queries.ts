import { scoped } from '../platform/auth/tenancy.js';
import type { SalesUnitContext } from '../platform/context.js';
import { DELIVERY_COLUMNS, toDeliveryView, type WebhookDeliveryView } from './webhook-delivery.service.js';

type Row = Record<string, unknown>;

/**
 * Deliveries of one payment's events to every registration, newest first by keyset (`beforeId`). The payment
 * comes from a read scoped to the caller's sales unit, and so do its events' deliveries.
 */
export async function listPaymentWebhookDeliveries(
  ctx: SalesUnitContext,
  paymentId: string,
  page: { limit: number; beforeId?: number },
): Promise<WebhookDeliveryView[]> {
  const rows = await ctx.em.execute<Row[]>(
    `select ${DELIVERY_COLUMNS} from domain_event e join delivery d on d.event_id = e.id
     where e.stream_type = 'payment' and e.stream_id = ? and e.msn = ? and (?::bigint is null or d.id < ?::bigint)
     order by d.id desc limit ?`,
    [paymentId, scoped(ctx).msn, page.beforeId ?? null, page.beforeId ?? null, page.limit],
  );
  return rows.map(toDeliveryView);
}

export interface WebhookFailureRate {
  since: Date;
  attempts: number;
  failed: number;
  rate: number;
  failing: boolean;
}

/** A registration whose share of failed attempts reaches this is failing (and stands out on the dashboard). */
export const FAILING_RATE = 0.2;

/**
 * Completed attempts of a registration of the caller's since `since`, and those that failed: no response, or a
 * status outside 2xx. In-flight and interrupted attempts have no outcome yet and are not counted.
 */
export async function readWebhookFailureRate(ctx: SalesUnitContext, webhookId: string, since: Date): Promise<WebhookFailureRate> {
  const [row] = await ctx.em.execute<Row[]>(
    `select count(*) as attempts, count(*) filter (where a.status_code is null or a.status_code not between 200 and 299) as failed
     from delivery_attempt a join delivery d on d.id = a.delivery_id join webhook w on w.id = d.webhook_id
     where d.webhook_id = ? and w.msn = ? and a.attempted_at >= ? and a.duration_ms is not null`,
    [webhookId, scoped(ctx).msn, since],
  );
  const attempts = Number(row?.attempts ?? 0);
  const failed = Number(row?.failed ?? 0);
  const rate = attempts === 0 ? 0 : failed / attempts;
  return { since, attempts, failed, rate, failing: failed > 0 && rate >= FAILING_RATE };
}
