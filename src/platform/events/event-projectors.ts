import type { EventSubscriber, FlushEventArgs } from '@mikro-orm/core';
import type { Em } from '../db/orm.js';
import type { SqlWrite } from '../db/sql-write.js';
import type { DomainEvent } from './domain-event.entity.js';
import type { NewEvent } from './new-event.js';

/**
 * Derives rows of one domain from the events of another (a ledger's entries from payments' captures), written in
 * the same flush, and so the same transaction, as the event itself: a crash can never keep one without the other.
 * A projector may read with `em.execute` and create entities with `em.create`; it must not flush or `find`.
 */
export interface EventProjector {
  name: string;
  /** The stream type whose events it projects, e.g. `payment`. */
  streamType: string;
  /**
   * The event names it projects; absent, every event of its stream. Declared so a writer of events that bypasses the
   * flush (one statement, `outboxInsertSql`) can tell that no projector needs its event.
   */
  names?: readonly string[];
  project(em: Em, event: DomainEvent): Promise<void>;
  /** The same projection for events written by a statement rather than a flush (event-statement.ts); absent, none may be. */
  statement?: StatementProjection;
}

/**
 * A projection of events written by SQL (`eventWrites`): what it reads, in the statement that reads before the writer
 * decides (for a modification, the one that locks the payment), and its rows, written with the event.
 */
export interface StatementProjection {
  /** A query giving at most one row of what the projection needs of a sales unit, whose MSN is its one parameter. */
  readSql: string;
  /**
   * The projector's rows for one event, given what `readSql` read (undefined when it found no row); it may run
   * statements of its own on `em` when the read was not enough (a sales unit's first capture makes its ledger).
   */
  writes(em: Em, event: NewEvent, read: Record<string, unknown> | undefined): Promise<SqlWrite[]>;
}

/** Projectors by stream type; registering the same one again (a second app in one process) changes nothing. */
export class EventProjectorRegistry {
  private readonly byStream = new Map<string, EventProjector[]>();

  register(projector: EventProjector): void {
    const list = this.byStream.get(projector.streamType) ?? [];
    if (list.some((p) => p.name === projector.name)) return;
    list.push(projector);
    this.byStream.set(projector.streamType, list);
  }

  forStream(streamType: string): readonly EventProjector[] {
    return this.byStream.get(streamType) ?? [];
  }

  /** Whether an event of this stream and name is projected by anyone. */
  projects(streamType: string, name: string): boolean {
    return this.forStream(streamType).some((projector) => !projector.names || projector.names.includes(name));
  }
}

export const eventProjectors = new EventProjectorRegistry();

/** Events recorded in a unit of work and not yet projected, by the EntityManager they were recorded with. */
const pending = new WeakMap<object, DomainEvent[]>();

/** Called by `recordEvent`: the event is projected at its unit of work's next flush, before anything is written. */
export function queueProjection(em: Em, event: DomainEvent): void {
  if (eventProjectors.forStream(event.streamType).length === 0) return;
  const list = pending.get(em);
  if (list) list.push(event);
  else pending.set(em, [event]);
}

/** The flush hook the app registers once on its ORM: runs each queued event through its stream's projectors. */
export const projectionSubscriber: EventSubscriber = {
  async beforeFlush(args: FlushEventArgs): Promise<void> {
    const em = args.em as unknown as Em;
    const events = pending.get(em);
    if (!events) return;
    pending.delete(em);
    for (const event of events) {
      for (const projector of eventProjectors.forStream(event.streamType)) await projector.project(em, event);
    }
  },
};
