import DataLoader from 'dataloader';
import type { Em } from '../platform/db/orm.js';
import { OUTBOX_EVENT_COLUMNS, toOutboxEvent, type OutboxEvent } from '../platform/events/outbox-event.js';
import { defineLoader } from '../platform/graph/loader-registry.js';
import { PSP_PAYMENT_STREAM } from './psp-payment.events.js';

/** One page of a PSP payment's events, oldest first: `limit` events with an id above `afterId`. */
export interface PspEventPageRequest {
  paymentId: string;
  limit: number;
  afterId?: number;
}

/**
 * Pages of several PSP payments' events in one statement (a lateral join per page). The payments come from reads
 * scoped to the calling PSP, so their events are its own.
 */
export async function readPspEventPages(em: Em, pages: readonly PspEventPageRequest[]): Promise<OutboxEvent[][]> {
  const keys = pages.map((page, ord) => ({ ord, stream_id: page.paymentId, after_id: page.afterId ?? null, lim: page.limit }));
  const rows = await em.execute<Record<string, unknown>[]>(
    `select k.ord, e.* from jsonb_to_recordset(?::jsonb) as k(ord int, stream_id text, after_id bigint, lim int)
     cross join lateral (
       select ${OUTBOX_EVENT_COLUMNS} from domain_event e
       where e.stream_type = '${PSP_PAYMENT_STREAM}' and e.stream_id = k.stream_id and (k.after_id is null or e.id > k.after_id)
       order by e.id limit k.lim) e
     order by k.ord, e.event_id`,
    [JSON.stringify(keys)],
  );
  const groups: OutboxEvent[][] = pages.map(() => []);
  for (const row of rows) groups[Number(row.ord)]!.push(toOutboxEvent(row));
  return groups;
}

export const pspEventsByPaymentIdLoader = defineLoader(
  'pspEventsByPaymentIdLoader',
  (em) =>
    new DataLoader<PspEventPageRequest, OutboxEvent[], string>((pages) => readPspEventPages(em, pages), {
      cacheKeyFn: (page) => JSON.stringify([page.paymentId, page.limit, page.afterId ?? null]),
    }),
);
