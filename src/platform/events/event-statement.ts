import type { Em } from '../db/orm.js';
import type { SqlWrite } from '../db/sql-write.js';
import { eventProjectors, type EventProjector, type StatementProjection } from './event-projectors.js';
import { outboxRowsSql, type NewEvent } from './record-event.js';

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
 * unit), for a writer whose events go out by SQL (`eventWrites`): read once, in the statement that reads before the
 * writer decides, so a projection costs no statement of its own. Each read comes back as one jsonb column.
 */
export function projectionReads(streamType: string, names: readonly string[], msn: string): ProjectionReads {
  const projectors = eventProjectors.forStream(streamType).filter((projector) => takesAny(projector, names));
  const statements = projectors.map(statementOf);
  return {
    ctes: statements.map((statement, i) => `projection_${i} as materialized (${statement.readSql})`),
    params: statements.map(() => msn),
    columns: statements.map((_, i) => `(select to_jsonb(r) from projection_${i} r) as projection_${i}`),
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
 * `events`' outbox rows and their projectors' rows, as writes of one statement, in the caller's transaction: what a
 * flush would have written for `recordEvent`, without the unit of work. `reads` are `projectionReads`' of the same
 * statement's row; a projector of these events that was not read is a writer's mistake, refused.
 */
export async function eventWrites(em: Em, events: readonly NewEvent[], reads: ReadonlyMap<string, Read>): Promise<SqlWrite[]> {
  if (events.length === 0) return [];
  const writes = [outboxRowsSql(events)];
  for (const event of events) {
    for (const projector of eventProjectors.forStream(event.streamType)) {
      if (!takesAny(projector, [event.name])) continue;
      if (!reads.has(projector.name)) throw new Error(`${event.name} is projected by ${projector.name}, whose read was not made`);
      writes.push(...(await statementOf(projector).writes(em, event, reads.get(projector.name))));
    }
  }
  return writes;
}

function takesAny(projector: EventProjector, names: readonly string[]): boolean {
  return !projector.names || names.some((name) => projector.names!.includes(name));
}

function statementOf(projector: EventProjector): StatementProjection {
  if (!projector.statement) throw new Error(`${projector.name} projects at a flush only, so its events cannot be written by a statement`);
  return projector.statement;
}
