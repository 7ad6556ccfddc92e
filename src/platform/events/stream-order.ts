import type { Em } from '../db/orm.js';
import { POSITIONED_EVENT_COLUMNS, toPositionedEvent, type PositionedEvent } from './outbox-event.js';

type Row = Record<string, unknown>;

/** A part of the stream: one sales unit's (or, for the bus, every unit's) events of some names and stream type. */
export interface StreamSlice {
  msn?: string;
  names?: readonly string[] | null;
  streamType?: string | null;
  occurredFrom?: Date;
  occurredBefore?: Date;
}

/** A page of the stream in either direction: after a position (oldest first) or before one (newest first). */
export type StreamPage = { limit: number } & ({ afterPosition: number } | { newestFirst: true; beforePosition?: number });

/**
 * The one rule by which the stream is read, by the bus, by a resuming subscriber and by the events connection: the
 * events that have a position (`event_position`), in position order (commit order; event-sequencer.ts), after or
 * before a position.
 * An event without a position yet is not part of the stream; it joins it, above every position read so far, once
 * sequenced. Reading by id instead lost events: ids commit out of order (issue 33, N1).
 */
export function streamSql(slice: StreamSlice, page: StreamPage, columns = POSITIONED_EVENT_COLUMNS): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, ...values: unknown[]) => {
    where.push(condition);
    params.push(...values);
  };
  if (slice.msn !== undefined) add('p.msn = ?', slice.msn);
  if (slice.names?.length) add(`e.name in (${slice.names.map(() => '?').join(', ')})`, ...slice.names);
  if (slice.streamType) add('e.stream_type = ?', slice.streamType);
  if (slice.occurredFrom) add('e.occurred_at >= ?', slice.occurredFrom);
  if (slice.occurredBefore) add('e.occurred_at < ?', slice.occurredBefore);
  if ('afterPosition' in page) add('p.position > ?', page.afterPosition);
  else if (page.beforePosition !== undefined) add('p.position < ?', page.beforePosition);
  params.push(page.limit);
  const order = 'afterPosition' in page ? 'p.position' : 'p.position desc';
  return {
    sql: `select ${columns} from event_position p join domain_event e on e.id = p.event_id
      ${where.length > 0 ? `where ${where.join(' and ')}` : ''} order by ${order} limit ?`,
    params,
  };
}

/** The events of `slice` after a position, oldest first: a resume's replay, and the oldest-first events connection. */
export async function readStreamAfter(
  em: Em,
  slice: StreamSlice,
  page: { afterPosition: number; limit: number },
): Promise<PositionedEvent[]> {
  const { sql, params } = streamSql(slice, page);
  return (await em.execute<Row[]>(sql, params)).map(toPositionedEvent);
}

/**
 * The position of the caller's sales unit's event `eventId`: undefined when the unit has no such event (another
 * unit's is no different), null when it has no position yet (not sequenced since it committed).
 */
export async function positionOfEvent(em: Em, msn: string, eventId: number): Promise<number | null | undefined> {
  const [row] = await em.execute<Row[]>(
    'select p.position from domain_event e left join event_position p on p.event_id = e.id where e.id = ? and e.msn = ?',
    [eventId, msn],
  );
  if (!row) return undefined;
  return row.position === null ? null : Number(row.position);
}
