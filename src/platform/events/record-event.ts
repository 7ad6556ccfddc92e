import type { Em } from '../db/orm.js';
import { DomainEvent } from './domain-event.entity.js';
import { eventProjectors } from './event-projectors.js';
import { currentTraceParent } from '../observability/trace-context.js';
import type { NewEvent } from './new-event.js';

export type { NewEvent } from './new-event.js';

/**
 * Appends an event to the outbox in the caller's unit of work, so the change and its event commit or roll back
 * together. The row goes out with the caller's flush (no statement of its own); once the transaction commits, the
 * bus finds it by reading the outbox (domain-event-bus.ts). An event a projector takes (`DomainModule.projectors`) is
 * written only with its projectors' rows, by the write runner (run-operation.ts), and is refused here.
 */
export function recordEvent(em: Em, event: NewEvent): DomainEvent {
  refuseProjected(event);
  // Set only when there is a trace, so an event without one writes no column a database before its migration lacks.
  const traceParent = currentTraceParent();
  return em.create(DomainEvent, traceParent ? { ...event, traceParent } : event);
}

function refuseProjected(event: Pick<NewEvent, 'streamType' | 'name'>): void {
  if (eventProjectors.taking(event.streamType, [event.name]).length > 0)
    throw new Error(`${event.name} is projected, so only the write runner writes it (with its projectors' rows)`);
}

/**
 * The outbox row of `event` as an `insert … select` from `source` (a CTE or table name whose rows the caller's
 * statement makes; `streamIdColumn` names the stream id among its columns), for a guarded write of the runner (a
 * create), which wakes the bus. An event a projector needs cannot be written this way (`eventWrites` writes both).
 */
export function outboxInsertSql(
  event: Omit<NewEvent, 'streamId'>,
  source: string,
  streamIdColumn: string,
): { sql: string; params: unknown[] } {
  refuseProjected(event);
  const row = outboxRow(streamIdColumn);
  return {
    sql: `insert into domain_event (${row.columns})
  select ${row.values} from ${source}
  returning id`,
    params: row.params(event),
  };
}

/**
 * An outbox row's columns, the placeholders of one row and an event's parameters for them, for the statements of the
 * write runner. The stream id is a parameter, given to `params`, unless `streamIdSql` puts it in the statement (a
 * column of an `insert … select`). As `recordEvent`: the trace column only when there is a trace.
 */
export function outboxRow(streamIdSql?: string) {
  const traceParent = currentTraceParent();
  return {
    columns: `stream_type, stream_id, msn, name, payload, occurred_at${traceParent ? ', trace_parent' : ''}`,
    values: `?, ${streamIdSql ?? '?'}, ?, ?, ?::jsonb, ?${traceParent ? ', ?' : ''}`,
    params: (event: Omit<NewEvent, 'streamId'>, streamId?: string) => [
      event.streamType,
      ...(streamId === undefined ? [] : [streamId]),
      event.msn,
      event.name,
      JSON.stringify(event.payload),
      event.occurredAt,
      ...(traceParent ? [traceParent] : []),
    ],
  };
}
