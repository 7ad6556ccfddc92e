import type { NewEvent } from './new-event.js';

/** One committed outbox row as every consumer (dispatcher, deliverers, subscribers) sees it: the event with its id. */
export interface OutboxEvent extends NewEvent {
  id: number;
}

/**
 * A committed event with its place in the stream: the position sequencing gave it after its commit (event-sequencer.ts).
 * Positions follow commit order, where ids follow insert order; every reader of the stream orders and resumes by them.
 */
export interface PositionedEvent extends OutboxEvent {
  position: number;
}

type Row = Record<string, unknown>;

/** The outbox columns, for statements that read events alongside other tables (aliased `e`). */
export const OUTBOX_EVENT_COLUMNS = 'e.id as event_id, e.stream_type, e.stream_id, e.msn, e.name, e.payload, e.occurred_at';

/**
 * Maps a row selected with OUTBOX_EVENT_COLUMNS. PostgreSQL's driver gives bigint as a string and PGlite as a
 * number, and a jsonb value may come back parsed or as text: both become the same values here.
 */
export function toOutboxEvent(row: Row): OutboxEvent {
  return {
    id: Number(row.event_id ?? row.id),
    streamType: row.stream_type as string,
    streamId: row.stream_id as string,
    msn: row.msn as string,
    name: row.name as string,
    payload: (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<string, unknown>,
    occurredAt: row.occurred_at instanceof Date ? row.occurred_at : new Date(String(row.occurred_at)),
  };
}

/** OUTBOX_EVENT_COLUMNS and the event's position (`event_position`, aliased `p`). */
export const POSITIONED_EVENT_COLUMNS = `${OUTBOX_EVENT_COLUMNS}, p.position`;

/** Maps a row selected with POSITIONED_EVENT_COLUMNS. */
export function toPositionedEvent(row: Row): PositionedEvent {
  return Object.assign(toOutboxEvent(row), { position: Number(row.position) });
}
