import type { Em } from '../db/orm.js';
import { DomainEvent } from './domain-event.entity.js';
import { queueProjection } from './event-projectors.js';
import { currentTraceParent } from '../observability/trace-context.js';

export interface NewEvent {
  streamType: string;
  streamId: string;
  msn: string;
  /** The public event name (registered by the domain in its EventTypeDefinition). */
  name: string;
  payload: Record<string, unknown>;
  occurredAt: Date;
}

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
