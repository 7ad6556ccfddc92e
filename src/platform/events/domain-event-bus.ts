import { forkEm, type Orm } from '../db/orm.js';
import { logError } from '../../log.js';
import { DomainEvent } from './domain-event.entity.js';
import type { NotificationListener } from './notification-listener.js';
import type { OutboxEvent } from './outbox-event.js';

/** The channel the domain_event insert trigger notifies (Migration20261123000005DomainEventStream). */
export const DOMAIN_EVENT_CHANNEL = 'domain_event';

/** Rows read per statement while catching up after a reconnect. */
const CATCH_UP_PAGE = 1_000;
/**
 * How far below the highest id heard a catch-up looks for events nobody heard. Sequence ids follow insert order,
 * not commit order: a transaction that drew a lower id may commit after a higher id was heard, so catching up
 * from the highest id alone would skip it. Every id heard within this window is remembered, so the catch-up
 * reads the window and publishes only what was not heard. It misses an event only if its transaction stayed open
 * while 10,000 later events were drawn; transactions here are short (no outbound call runs inside one) and their
 * number is bounded by the connection pools, so that needs a transaction open for a very long time at a very
 * high event rate.
 */
const CATCH_UP_WINDOW = 10_000;
/** A failed read is retried after this long, doubling up to the cap, until it succeeds: no event is dropped. */
const RETRY_FIRST_DELAY_MS = 100;
const RETRY_MAX_DELAY_MS = 5_000;

export type EventListener = (event: OutboxEvent) => void;

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

/**
 * Fans committed outbox events, of every domain, out to this process's subscribers. Every instance LISTENs on the
 * database, so an event committed through any instance reaches subscribers on all of them. A notification carries
 * only the event id; ids that arrive together are read in one statement, and a subscriber gets only the events its
 * filter admits (its sales unit's, of its stream type), in commit order.
 */
export class DomainEventBus {
  private readonly subscribers = new Set<Subscriber>();
  private readonly commitListeners: (() => void)[] = [];
  private pending: number[] = [];
  private flushScheduled = false;
  /** Reads run one after another, so events leave in the order their notifications arrived. */
  private delivering: Promise<void> = Promise.resolve();
  private highestSeenId = 0;
  /** Ids heard (or published by a catch-up) above `highestSeenId - CATCH_UP_WINDOW`: what a catch-up skips. */
  private readonly seen = new Set<number>();
  private stopped = false;
  private wakeFromRetryWait: (() => void) | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly notifications: NotificationListener,
  ) {}

  async start(): Promise<void> {
    await this.notifications.start(
      (payload) => this.onNotification(payload),
      () => this.catchUp(),
    );
    // Everything committed by now is history, not news: remembered as seen, a catch-up never replays it. Anything
    // committing later is heard, since LISTEN is already on, or found by a catch-up after a reconnect.
    const newest = await forkEm(this.orm).findOne(DomainEvent, { id: { $gt: 0 } }, { orderBy: { id: 'desc' }, fields: ['id'] });
    if (newest) for (const id of await this.idsAbove(newest.id - CATCH_UP_WINDOW)) this.markSeen(id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeFromRetryWait?.();
    await this.notifications.stop();
    this.subscribers.clear();
    await this.delivering;
  }

  /** Calls `listener` with each committed event `filter` admits, from now on; returns the unsubscribe function. */
  subscribe(filter: EventFilter, listener: EventListener): () => void {
    const subscriber = { filter, listener };
    this.subscribers.add(subscriber);
    return () => {
      this.subscribers.delete(subscriber);
    };
  }

  /**
   * Calls `listener` whenever an event commits, on any instance, without reading it: how the webhook dispatcher
   * learns there is work at once instead of at its next tick.
   */
  onCommitted(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  private onNotification(payload: string): void {
    const id = Number(payload);
    if (!Number.isSafeInteger(id) || id <= 0) return;
    for (const listener of this.commitListeners) listener();
    // Already published by a catch-up that read it before its notification arrived.
    if (this.seen.has(id)) return;
    this.markSeen(id);
    // Nobody listening here: no read at all, so an instance without subscribers costs the database nothing.
    if (this.subscribers.size === 0) return;
    this.pending.push(id);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // Notifications of one burst (a transaction with several events, or many commits) arrive in the same turn.
    setImmediate(() => {
      this.flushScheduled = false;
      const ids = this.pending;
      this.pending = [];
      this.enqueue(() => this.deliverIds(ids));
    });
  }

  /**
   * After a dropped LISTEN connection: events committed meanwhile sent notifications nobody heard. They may have
   * any id above the window's floor (see CATCH_UP_WINDOW), so the whole window is read and what was heard skipped.
   * Notifications heard from now on are the new connection's; one for an event this catch-up publishes is dropped
   * as seen.
   */
  private catchUp(): void {
    this.enqueue(async () => {
      const unheard = (await this.idsAbove(this.highestSeenId - CATCH_UP_WINDOW)).filter((id) => !this.seen.has(id));
      // Marked before the read, so a notification arriving meanwhile is not published twice.
      for (const id of unheard) this.markSeen(id);
      if (this.subscribers.size === 0) return;
      for (let start = 0; start < unheard.length && !this.stopped; start += CATCH_UP_PAGE) {
        const ids = unheard.slice(start, start + CATCH_UP_PAGE);
        const events = await forkEm(this.orm).find(DomainEvent, { id: { $in: ids } }, { orderBy: { id: 'asc' } });
        this.publish(events);
      }
    });
  }

  /** The ids of committed events above `floor`, in id order: integers from an index, even for a wide window. */
  private async idsAbove(floor: number): Promise<number[]> {
    const rows = await forkEm(this.orm).execute<{ id: unknown }[]>('select id from domain_event where id > ? order by id', [
      Math.max(floor, 0),
    ]);
    return rows.map((row) => Number(row.id));
  }

  private markSeen(id: number): void {
    this.seen.add(id);
    if (id <= this.highestSeenId) return;
    this.highestSeenId = id;
    // Pruned in bulk once the set holds twice the window, so the cost per id stays constant.
    if (this.seen.size <= 2 * CATCH_UP_WINDOW) return;
    const floor = this.highestSeenId - CATCH_UP_WINDOW;
    for (const seenId of this.seen) if (seenId <= floor) this.seen.delete(seenId);
  }

  /**
   * Runs `work` after the work queued before it, so events leave in the order their notifications arrived. A
   * failed read is retried (with backoff) rather than dropped: the events it was for would otherwise be lost, as
   * their notifications will not come again.
   */
  private enqueue(work: () => Promise<void>): void {
    this.delivering = this.delivering.then(async () => {
      for (let delay = RETRY_FIRST_DELAY_MS; !this.stopped; delay = Math.min(delay * 2, RETRY_MAX_DELAY_MS)) {
        try {
          await work();
          return;
        } catch (error) {
          // Work queued just before stop must not touch a database that is closing; stop() ends the wait.
          if (this.stopped) return;
          logError('event fan-out failed; retrying', error, { retryInMs: delay });
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, delay);
            this.wakeFromRetryWait = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wakeFromRetryWait = undefined;
        }
      }
    });
  }

  private async deliverIds(ids: number[]): Promise<void> {
    if (this.subscribers.size === 0) return;
    const rows = await forkEm(this.orm).find(DomainEvent, { id: { $in: ids } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    this.publish(ids.flatMap((id) => byId.get(id) ?? []));
  }

  private publish(events: OutboxEvent[]): void {
    for (const event of events) {
      for (const { filter, listener } of this.subscribers) {
        if (
          filter.msn !== event.msn ||
          (filter.streamType !== undefined && filter.streamType !== event.streamType) ||
          (filter.names && !filter.names.has(event.name))
        )
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
