import type { MetadataStorage } from '@mikro-orm/core';
import type { SqlSession, SqlWrite } from '../db/statement-transaction.js';
import type { NewEvent } from './new-event.js';

/**
 * Derives rows of one domain from the events of another (a ledger's entries from payments' captures), written in
 * the statement that writes the event (the write runner's, run-operation.ts), so a crash can never keep one without
 * the other. An event a projector takes can only be written by the runner (`recordEvent` refuses it).
 */
export interface EventProjector {
  name: string;
  /** The stream type whose events it projects, e.g. `payment`. */
  streamType: string;
  /** The event names it projects; absent, every event of its stream. */
  names?: readonly string[];
  /**
   * A query giving at most one row of what the projection needs of a sales unit, whose MSN is its one parameter:
   * read in the statement that reads before the writer decides (for a modification, the one that locks the payment).
   */
  readSql: string;
  /**
   * The projector's rows for one event, given what `readSql` read (undefined when it found no row); it may run
   * statements of its own on `session` when the read was not enough (a sales unit's first capture makes its ledger).
   */
  writes(
    on: { session: SqlSession; metadata: MetadataStorage },
    event: NewEvent,
    read: Record<string, unknown> | undefined,
  ): Promise<SqlWrite[]>;
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

  /** The projectors of a stream that take at least one of `names`. */
  taking(streamType: string, names: readonly string[]): readonly EventProjector[] {
    return (this.byStream.get(streamType) ?? []).filter((p) => !p.names || names.some((name) => p.names!.includes(name)));
  }
}

export const eventProjectors = new EventProjectorRegistry();
