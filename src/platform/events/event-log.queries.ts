import { scoped } from '../auth/tenancy.js';
import type { RequestContext } from '../context.js';
import { AppError } from '../errors/app-error.js';
import { OUTBOX_EVENT_COLUMNS, toOutboxEvent, type OutboxEvent } from './outbox-event.js';

type Row = Record<string, unknown>;

/** Which of the caller's events to list: every criterion given must hold. */
export interface EventLogFilter {
  names?: readonly string[] | null;
  streamType?: string | null;
  occurredFrom?: string | null;
  occurredBefore?: string | null;
}

/**
 * The caller's sales unit's committed events after an event id, oldest first, of the given names and stream type:
 * what a resuming `streamEvents` subscriber missed. One statement.
 */
export async function readEventLogAfter(
  ctx: RequestContext,
  filter: Pick<EventLogFilter, 'names' | 'streamType'>,
  page: { afterId: number; limit: number },
): Promise<OutboxEvent[]> {
  const where = ['e.msn = ?', 'e.id > ?'];
  const params: unknown[] = [scoped(ctx).msn, page.afterId];
  if (filter.names?.length) {
    where.push(`e.name in (${filter.names.map(() => '?').join(', ')})`);
    params.push(...filter.names);
  }
  if (filter.streamType) {
    where.push('e.stream_type = ?');
    params.push(filter.streamType);
  }
  params.push(page.limit);
  const rows = await ctx.em.execute<Row[]>(
    `select ${OUTBOX_EVENT_COLUMNS} from domain_event e where ${where.join(' and ')} order by e.id limit ?`,
    params,
  );
  return rows.map(toOutboxEvent);
}

/**
 * The caller's sales unit's committed events of every stream (payments, QR check-ins, PSP, checkout, operator
 * actions), newest first: `limit` rows with an id below `beforeId`. One statement per page.
 */
export async function readEventLog(
  ctx: RequestContext,
  filter: EventLogFilter | null | undefined,
  page: { limit: number; beforeId?: number },
): Promise<OutboxEvent[]> {
  const where = ['e.msn = ?'];
  const params: unknown[] = [scoped(ctx).msn];
  if (filter?.names?.length) {
    where.push(`e.name in (${filter.names.map(() => '?').join(', ')})`);
    params.push(...filter.names);
  }
  if (filter?.streamType) {
    where.push('e.stream_type = ?');
    params.push(filter.streamType);
  }
  const from = filter?.occurredFrom ? new Date(filter.occurredFrom) : undefined;
  const before = filter?.occurredBefore ? new Date(filter.occurredBefore) : undefined;
  if (from && before && from >= before) throw AppError.validation([{ name: 'occurredBefore', reason: 'Later than occurredFrom' }]);
  if (from) {
    where.push('e.occurred_at >= ?');
    params.push(from);
  }
  if (before) {
    where.push('e.occurred_at < ?');
    params.push(before);
  }
  if (page.beforeId !== undefined) {
    where.push('e.id < ?');
    params.push(page.beforeId);
  }
  params.push(page.limit);
  const rows = await ctx.em.execute<Row[]>(
    `select ${OUTBOX_EVENT_COLUMNS} from domain_event e where ${where.join(' and ')} order by e.id desc limit ?`,
    params,
  );
  return rows.map(toOutboxEvent);
}
