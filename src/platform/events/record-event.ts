import type { Em } from '../db/orm.js';
import type { SqlWrite } from '../db/sql-write.js';
import { DomainEvent } from './domain-event.entity.js';
import { eventProjectors, queueProjection } from './event-projectors.js';
import { currentTraceParent } from '../observability/trace-context.js';
import type { NewEvent } from './new-event.js';

export type { NewEvent } from './new-event.js';

/**
 * Appends an event to the outbox in the caller's unit of work, so the change and its event commit or roll back
 * together: the one way every domain records events. The row goes out with the caller's flush (no statement of
 * its own); once the transaction commits, the bus finds it by reading the outbox (domain-event-bus.ts). Projectors registered for its stream
 * (`DomainModule.projectors`) run at that flush, in the same transaction.
 */
export function recordEvent(em: Em, event: NewEvent): DomainEvent {
  // Set only when there is a trace, so an event without one writes no column a database before its migration lacks.
  const traceParent = currentTraceParent();
  const row = em.create(DomainEvent, traceParent ? { ...event, traceParent } : event);
  // Registered projectors (e.g. the settlement ledger) write their rows in the same flush.
  queueProjection(em, row);
  return row;
}

/**
 * The outbox row of `event` as an `insert … select` from `source` (a CTE or table name whose rows the caller's
 * statement makes; `streamIdColumn` names the stream id among its columns), for a write done in one SQL statement
 * rather than a flush. The caller tells the bus with `outboxWrittenBySql` once the statement has run. An event a
 * projector needs cannot be written this way, which writes no projector's rows (`eventWrites` writes both).
 */
export function outboxInsertSql(
  event: Omit<NewEvent, 'streamId'>,
  source: string,
  streamIdColumn: string,
): { sql: string; params: unknown[] } {
  if (eventProjectors.projects(event.streamType, event.name))
    throw new Error(`${event.name} is projected at a flush, so it cannot be written by a statement of its own`);
  const traceParent = currentTraceParent();
  // As `recordEvent`: the trace column only when there is a trace.
  const trace = traceParent ? { column: ', trace_parent', value: ', ?' } : { column: '', value: '' };
  return {
    sql: `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at${trace.column})
  select ?, ${streamIdColumn}, ?, ?, ?::jsonb, ?${trace.value} from ${source}
  returning id`,
    params: [
      event.streamType,
      event.msn,
      event.name,
      JSON.stringify(event.payload),
      event.occurredAt,
      ...(traceParent ? [traceParent] : []),
    ],
  };
}

/**
 * The outbox rows of `events`, in their order, as one insert for a write done by SQL rather than a flush
 * (`eventWrites` adds their projectors' rows). The caller tells the bus with `outboxWrittenBySql`.
 */
export function outboxRowsSql(events: readonly NewEvent[]): SqlWrite {
  const traceParent = currentTraceParent();
  // As `recordEvent`: the trace column only when there is a trace.
  const values = `(?, ?, ?, ?, ?::jsonb, ?${traceParent ? ', ?' : ''})`;
  return {
    sql: `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at${traceParent ? ', trace_parent' : ''})
  values ${events.map(() => values).join(', ')}`,
    params: events.flatMap((event) => [
      event.streamType,
      event.streamId,
      event.msn,
      event.name,
      JSON.stringify(event.payload),
      event.occurredAt,
      ...(traceParent ? [traceParent] : []),
    ]),
  };
}
