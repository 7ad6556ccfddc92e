import { randomUUID } from 'node:crypto';
import { forkEm, type Em, type Orm } from '../db/orm.js';
import { logError } from '../../log.js';
import { commitWakeSubscriber } from './commit-wake.js';
import { streamSql } from './stream-order.js';
import { SEQUENCING_BATCH, sequenceEvents } from './event-sequencer.js';
import { EventSubscribers, type EventFilter, type EventListener } from './event-subscribers.js';
import type { NotificationListener } from './notification-listener.js';
import { toPositionedEvent } from './outbox-event.js';

export type { EventFilter, EventListener } from './event-subscribers.js';

/** The channel each instance announces its commits of events on, right after them (never inside a writing transaction). */
export const DOMAIN_EVENT_CHANNEL = 'domain_event';

/**
 * How often the outbox is read when nothing woke the bus: the safety net for a lost announcement (a listening
 * connection being re-established) and for events written by SQL outside any instance. Cheap: two index lookups that
 * usually find nothing.
 */
export const DEFAULT_POLL_MS = 100;
/** Events one read brings to subscribers at most: a quarter of what a subscriber may hold (event-stream.ts). */
export const READ_PAGE = 250;
/** The bus's reads are the instance's background work, not a request's: kept out of the per-request query log. */
const BACKGROUND = { enabled: false };
/** A failed read is retried after this long, doubling up to the cap, until it succeeds: no event is dropped. */
const RETRY_FIRST_DELAY_MS = 100;
const RETRY_MAX_DELAY_MS = 5_000;

export interface DomainEventBusOptions {
  pollMs?: number;
}

/**
 * Fans committed outbox events, of every domain, out to this process's subscribers, reading them from the outbox
 * itself: nothing is added to the writing transaction. Reads are woken at once by a commit on this instance
 * (`committedHere`), by another instance announcing its commits, and otherwise every `pollMs`.
 *
 * Each read first gives the events committed since the last one their positions (event-sequencer.ts), then reads the
 * stream after the position it reached (streamSql, the rule every reader of the stream follows). Positions become
 * visible in order, so that position is the whole state: a lower id committing after a higher one was read gets a
 * higher position and is found by the next read, and nothing is read twice. Each read publishes in position order,
 * which is commit order, and so a stream's order.
 */
export class DomainEventBus {
  private readonly subscribers = new EventSubscribers();
  private readonly commitListeners: (() => void)[] = [];
  private readonly pollMs: number;
  /** Tells this instance's own announcements apart from other instances'. */
  private readonly instanceTag = randomUUID();
  /** The position the last read reached: every event up to it was read. */
  private position = 0;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  /** The read about to run may find events committed elsewhere: tell the commit listeners if it does. */
  private tellListeners = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private wakeFromRetryWait: (() => void) | undefined;
  private announcing = false;
  private announceAgain = false;

  constructor(
    private readonly orm: Orm,
    private readonly notifications: NotificationListener,
    options: DomainEventBusOptions = {},
  ) {
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  }

  async start(): Promise<void> {
    const wake = () => this.wake(true);
    await this.notifications.start((payload) => payload !== this.instanceTag && wake(), wake);
    // Everything committed by now is history, not news: read once, published to nobody.
    await this.read({ publish: false, tellListeners: false });
    // Always, subscribers or not: events get their positions, and a read keeps the position current, so a first
    // subscriber is not handed what committed while nobody listened.
    this.pollTimer = setInterval(wake, this.pollMs);
    this.pollTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    this.wakeFromRetryWait?.();
    await this.notifications.stop();
    this.subscribers.clear();
    await this.reading;
  }

  /** Calls `listener` with each committed event `filter` admits, from now on; returns the unsubscribe function. */
  subscribe(filter: EventFilter, listener: EventListener): () => void {
    return this.subscribers.add(filter, listener);
  }

  /**
   * Calls `listener` whenever events commit, through this instance (at once) or another (when a read finds them),
   * without reading them: how the outbox dispatcher learns there is work before its next tick.
   */
  onCommitted(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /**
   * Every commit through these ORMs that carries events wakes this bus at once (commit-wake.ts), with no work inside
   * the transaction: the request pool's, and the background lane's, which records a callback's outcome with its event.
   */
  hearCommitsOf(...orms: readonly Orm[]): void {
    for (const each of new Set(orms)) each.em.getEventManager().registerSubscriber(commitWakeSubscriber(() => this.committedHere()));
  }

  /**
   * A transaction of this instance committed events (commit-wake.ts): the other instances are told, then the commit
   * listeners, then a read, with or without subscribers: read at once, the events become history before anyone
   * subscribes after them (a subscriber gets what commits after it subscribed, not what committed just before).
   */
  committedHere(): void {
    if (this.stopped) return;
    this.announce();
    this.callCommitListeners();
    this.wake(false);
  }

  get subscriberCount(): number {
    return this.subscribers.count;
  }

  /**
   * Tells every instance's bus that events committed here, so they read now rather than at their next poll. Sent
   * right after the commit, in a statement of its own on the listening connection (no writer waits on NOTIFY's
   * lock); other instances' subscribers used to wait for this instance's dispatcher to claim the events and announce
   * its batch, a statement and a scheduler turn later (bench/README.md). One announcement at a time: commits during
   * one make one more follow it, so a burst of commits costs two NOTIFYs, not one each. A failed one is not retried:
   * the others' poll finds the events.
   */
  private announce(): void {
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    this.announcing = true;
    this.notifications
      .notify(this.instanceTag)
      .catch(() => undefined)
      .finally(() => {
        this.announcing = false;
        if (this.announceAgain && !this.stopped) {
          this.announceAgain = false;
          this.announce();
        }
      });
  }

  /** Reads soon; reads never overlap, and a wake during one makes another follow it. */
  private wake(mayBeFromElsewhere: boolean): void {
    if (this.stopped) return;
    if (mayBeFromElsewhere) this.tellListeners = true;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readUntilQuiet().finally(() => (this.reading = undefined));
  }

  private async readUntilQuiet(): Promise<void> {
    do {
      this.readAgain = false;
      const tellListeners = this.tellListeners;
      this.tellListeners = false;
      let more = false;
      await this.retried(async () => void (more = await this.read({ publish: true, tellListeners })));
      if (more) {
        // The subscribers take what this page gave them before the next one comes.
        this.readAgain = true;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } while (this.readAgain && !this.stopped);
  }

  /**
   * One read (the rule is in the class comment): sequence, then the stream after the position reached. With
   * subscribers it brings at most `READ_PAGE` events: a transaction with more events of one unit than a subscriber
   * may hold (`DEFAULT_MAX_BUFFERED`, event-stream.ts), or a bus catching up, reached every subscriber in one read and
   * failed them all as too slow before they could take one. Without subscribers it reads only the highest position.
   * Returns whether more may follow at once. State changes once the statements succeeded, so a failed read is simply
   * repeated.
   */
  private async read({ publish, tellListeners }: { publish: boolean; tellListeners: boolean }): Promise<boolean> {
    const em = forkEm(this.orm);
    const sequenced = await sequenceEvents(em);
    const withRows = publish && this.subscribers.count > 0;
    const events = withRows ? await this.eventsAfter(em, this.position) : [];
    const reached = withRows ? (events[events.length - 1]?.position ?? this.position) : await highestPosition(em);
    const found = reached > this.position;
    this.position = Math.max(this.position, reached);
    if (this.stopped) return false;
    if (withRows) this.subscribers.publish(events);
    if (found && tellListeners) this.callCommitListeners();
    return events.length === READ_PAGE || sequenced === SEQUENCING_BATCH;
  }

  private async eventsAfter(em: Em, position: number) {
    const { sql, params } = streamSql({}, { afterPosition: position, limit: READ_PAGE });
    return (await em.execute<Record<string, unknown>[]>(sql, params, 'all', BACKGROUND)).map(toPositionedEvent);
  }

  private callCommitListeners(): void {
    for (const listener of this.commitListeners) {
      try {
        listener();
      } catch (error) {
        logError('commit listener failed', error);
      }
    }
  }

  /** Runs `work` until it succeeds (with backoff) or the bus stops: the events it was for would otherwise wait. */
  private async retried(work: () => Promise<void>): Promise<void> {
    for (let delay = RETRY_FIRST_DELAY_MS; !this.stopped; delay = Math.min(delay * 2, RETRY_MAX_DELAY_MS)) {
      try {
        await work();
        return;
      } catch (error) {
        // A read queued just before stop must not touch a database that is closing; stop() ends the wait.
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
  }
}

/** The highest position given: where a read without subscribers leaves the bus. */
async function highestPosition(em: Em): Promise<number> {
  const [row] = await em.execute<{ position: unknown }[]>('select max(position) as position from event_position', [], 'all', BACKGROUND);
  return Number(row?.position ?? 0);
}
