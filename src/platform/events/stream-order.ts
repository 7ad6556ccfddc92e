import type { Em } from '../db/orm.js';
import { POSITIONED_EVENT_COLUMNS, toPositionedEvent, type PositionedEvent } from './outbox-event.js';

type Row = Record<string, unknown>;

/** The ends of bigint, the positions' type: the open ends of a unit's range of positions. */
const FIRST = '-9223372036854775808';
const LAST = '9223372036854775807';

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
  if (slice.msn !== undefined) {
    // A unit's slice is a range of its index on (msn, position), bounded at both ends by row comparisons that no other
    // index serves, and read in that index's order: with `p.msn = ?` and a bound on the position, the planner could
    // walk every unit's positions by the position index and filter, reading all that other units committed since.
    const after = 'afterPosition' in page ? page.afterPosition : undefined;
    const before = 'afterPosition' in page ? undefined : page.beforePosition;
    add(after === undefined ? '(p.msn, p.position) >= (?, ?::bigint)' : '(p.msn, p.position) > (?, ?::bigint)', slice.msn, after ?? FIRST);
    add(before === undefined ? '(p.msn, p.position) <= (?, ?::bigint)' : '(p.msn, p.position) < (?, ?::bigint)', slice.msn, before ?? LAST);
  } else if ('afterPosition' in page) add('p.position > ?', page.afterPosition);
  else if (page.beforePosition !== undefined) add('p.position < ?', page.beforePosition);
  if (slice.names?.length) add(`e.name in (${slice.names.map(() => '?').join(', ')})`, ...slice.names);
  if (slice.streamType) add('e.stream_type = ?', slice.streamType);
  if (slice.occurredFrom) add('e.occurred_at >= ?', slice.occurredFrom);
  if (slice.occurredBefore) add('e.occurred_at < ?', slice.occurredBefore);
  params.push(page.limit);
  const desc = 'afterPosition' in page ? '' : ' desc';
  const order = slice.msn !== undefined ? `p.msn${desc}, p.position${desc}` : `p.position${desc}`;
  // Every unit's stream (the bus's read) takes each position's event by its key: `offset 0` keeps the lateral a probe
  // per position, in position order until the page is full. As a join, statistics that thought many positions follow
  // made it a hash join over every position (issue 36). A unit's slice is held to its index range above instead.
  const events =
    slice.msn === undefined
      ? 'cross join lateral (select * from domain_event e where e.id = p.event_id offset 0) e'
      : 'join domain_event e on e.id = p.event_id';
  return {
    sql: `select ${columns} from event_position p ${events}
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
