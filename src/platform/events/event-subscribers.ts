import { logError } from '../../log.js';
import type { PositionedEvent } from './outbox-event.js';

export type EventListener = (event: PositionedEvent) => void;

/** Which events a subscriber gets: always one sales unit's, of one stream type, optionally only some names. */
export interface EventFilter {
  msn: string;
  /** Absent means every stream of the sales unit (the events feed). */
  streamType?: string;
  /** Public event names; absent means every event of the stream type. */
  names?: ReadonlySet<string>;
}

interface Subscriber {
  filter: EventFilter;
  listener: EventListener;
}

/** This process's subscribers, and which of them an event goes to. */
export class EventSubscribers {
  /** By sales unit: an event is offered only to its own unit's subscribers, however many others listen. */
  private readonly byUnit = new Map<string, Set<Subscriber>>();
  private subscribed = 0;

  get count(): number {
    return this.subscribed;
  }

  add(filter: EventFilter, listener: EventListener): () => void {
    const subscriber = { filter, listener };
    let unit = this.byUnit.get(filter.msn);
    if (!unit) this.byUnit.set(filter.msn, (unit = new Set()));
    unit.add(subscriber);
    this.subscribed++;
    return () => {
      if (!unit.delete(subscriber)) return;
      this.subscribed = Math.max(0, this.subscribed - 1);
      if (unit.size === 0 && this.byUnit.get(filter.msn) === unit) this.byUnit.delete(filter.msn);
    };
  }

  clear(): void {
    this.byUnit.clear();
    this.subscribed = 0;
  }

  /** Hands each event, in the given order, to every subscriber whose filter admits it; one failing harms no other. */
  publish(events: readonly PositionedEvent[]): void {
    for (const event of events) {
      for (const { filter, listener } of this.byUnit.get(event.msn) ?? []) {
        if ((filter.streamType !== undefined && filter.streamType !== event.streamType) || (filter.names && !filter.names.has(event.name)))
          continue;
        try {
          listener(event);
        } catch (error) {
          logError('event subscriber failed', error, { eventId: event.id });
        }
      }
    }
  }
}
