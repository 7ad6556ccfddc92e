import type { Em } from '../db/orm.js';
import type { SqlSession, SqlWrite } from '../db/statement-transaction.js';
import { eventProjectors } from './event-projectors.js';
import type { NewEvent } from './new-event.js';
import { outboxRow } from './record-event.js';

type Read = Record<string, unknown> | undefined;

/** What the projectors of a writer's events read, as CTEs and columns of the statement that reads before it decides. */
export interface ProjectionReads {
  ctes: string[];
  params: unknown[];
  columns: string[];
  /** Each projector's read, from the statement's row. */
  of(row: Record<string, unknown>): ReadonlyMap<string, Read>;
}

/**
 * The reads of every projector that takes one of `names` (the events a writer may record on a stream of one sales
 * unit): read once, in the statement that reads before the writer decides, so a projection costs no statement of its
 * own. Each read comes back as one jsonb column.
 */
export function projectionReads(streamType: string, names: readonly string[], msn: string): ProjectionReads {
  const projectors = eventProjectors.taking(streamType, names);
  return {
    ctes: projectors.map((projector, i) => `projection_${i} as materialized (${projector.readSql})`),
    params: projectors.map(() => msn),
    columns: projectors.map((_, i) => `(select to_jsonb(r) from projection_${i} r) as projection_${i}`),
    of(row) {
      // PGlite and pg parse jsonb; some drivers hand it over as text.
      return new Map(
        projectors.map((projector, i) => {
          const value = row[`projection_${i}`];
          return [projector.name, (typeof value === 'string' ? JSON.parse(value) : (value ?? undefined)) as Read];
        }),
      );
    },
  };
}

/**
 * `events`' outbox rows and their projectors' rows, as writes of one statement. `reads` are `projectionReads`' of
 * the statement that read; a projector of these events that was not read is a writer's mistake, refused.
 */
export async function eventWrites(
  em: Em,
  session: SqlSession,
  events: readonly NewEvent[],
  reads: ReadonlyMap<string, Read>,
): Promise<SqlWrite[]> {
  if (events.length === 0) return [];
  const writes = [outboxRowsSql(events)];
  for (const event of events) {
    for (const projector of eventProjectors.taking(event.streamType, [event.name])) {
      if (!reads.has(projector.name)) throw new Error(`${event.name} is projected by ${projector.name}, whose read was not made`);
      writes.push(...(await projector.writes({ session, metadata: em.getMetadata() }, event, reads.get(projector.name))));
    }
  }
  return writes;
}

/** The outbox rows of `events`, in their order, as one insert of the write runner (`eventWrites` adds their projectors' rows). */
export function outboxRowsSql(events: readonly NewEvent[]): SqlWrite {
  const row = outboxRow();
  return {
    sql: `insert into domain_event (${row.columns})
  values ${events.map(() => `(${row.values})`).join(', ')}`,
    params: events.flatMap((event) => row.params(event, event.streamId)),
  };
}
