import { randomUUID } from 'node:crypto';
import { forkEm, type Orm } from '../db/orm.js';
import { logError } from '../../log.js';
import type { NotificationListener } from './notification-listener.js';
import { OUTBOX_EVENT_COLUMNS, toOutboxEvent, type OutboxEvent } from './outbox-event.js';

/** The channel each instance announces its commits of events on, right after them (never inside a writing transaction). */
export const DOMAIN_EVENT_CHANNEL = 'domain_event';

/**
 * How often the outbox is read when nothing woke the bus: the safety net for a lost announcement (a listening
 * connection being re-established) and for events written by SQL outside any instance. Cheap: one index lookup that
 * usually finds nothing.
 */
export const DEFAULT_POLL_MS = 100;
/** The largest xid8: an upper bound of every transaction id. */
const MAX_XID8 = '18446744073709551615';
/** Events one read brings to subscribers at most: a quarter of what a subscriber may hold (event-stream.ts). */
export const READ_PAGE = 250;
/** The bus's reads are the instance's background work, not a request's: kept out of the per-request query log. */
const BACKGROUND = { enabled: false };
/** OUTBOX_EVENT_COLUMNS' shape with no event: the row that carries the horizon. */
const NO_EVENT_COLUMNS =
  'null::bigint as event_id, null::text as stream_type, null::text as stream_id, null::text as msn, null::text as name, null::jsonb as payload, null::timestamptz as occurred_at';
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

export interface DomainEventBusOptions {
  pollMs?: number;
}

/**
 * Fans committed outbox events, of every domain, out to this process's subscribers, reading them from the outbox
 * itself: nothing is added to the writing transaction. Reads are woken at once by a commit on this instance
 * (`committedHere`), by another instance announcing its commits, and otherwise every `pollMs`.
 *
 * The rule that keeps a late commit from being skipped (sequence ids are drawn in insert order, not commit order):
 * each event carries the id of the transaction that wrote it (`xid`), and a read takes, in the same snapshot, the
 * oldest transaction still running (`pg_snapshot_xmin(pg_current_snapshot())`, the horizon). Every transaction below
 * the horizon has ended, so all its events were visible to that read; only events of transactions at or above it may
 * still appear. The next read therefore looks at events with `xid >= horizon` of the previous read, and skips those
 * it already published. No event id serves as a cursor, so a lower id committing after a higher one was read is
 * found by the first read whose snapshot sees it. Each read publishes what it found in id order, which is commit
 * order within a stream (a stream's writers serialize on its row lock and draw their ids while holding it).
 */
export class DomainEventBus {
  /** By sales unit: an event is offered only to its own unit's subscribers, however many others listen. */
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private subscribed = 0;
  private readonly commitListeners: (() => void)[] = [];
  private readonly pollMs: number;
  /** Tells this instance's own announcements apart from other instances'. */
  private readonly instanceTag = randomUUID();
  /** The last read's horizon: every transaction below it had ended, and its events were read. */
  private horizon = '0';
  /** Events read whose transaction is at or above the horizon (id to xid): they come back in the next read. */
  private readonly unsettled = new Map<number, bigint>();
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
    const [first] = await forkEm(this.orm).execute<{ horizon: string }[]>(
      'select pg_snapshot_xmin(pg_current_snapshot())::text as horizon',
      [],
      'all',
      BACKGROUND,
    );
    this.horizon = first!.horizon;
    await this.read({ publish: false, tellListeners: false });
    // Always, subscribers or not: a read keeps the horizon current, so a first subscriber is not handed what committed
    // while nobody listened.
    this.pollTimer = setInterval(wake, this.pollMs);
    this.pollTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    this.wakeFromRetryWait?.();
    await this.notifications.stop();
    this.subscribers.clear();
    this.subscribed = 0;
    await this.reading;
  }

  /** Calls `listener` with each committed event `filter` admits, from now on; returns the unsubscribe function. */
  subscribe(filter: EventFilter, listener: EventListener): () => void {
    const subscriber = { filter, listener };
    let unit = this.subscribers.get(filter.msn);
    if (!unit) this.subscribers.set(filter.msn, (unit = new Set()));
    unit.add(subscriber);
    this.subscribed++;
    return () => {
      if (!unit.delete(subscriber)) return;
      this.subscribed = Math.max(0, this.subscribed - 1);
      if (unit.size === 0 && this.subscribers.get(filter.msn) === unit) this.subscribers.delete(filter.msn);
    };
  }

  /**
   * Calls `listener` whenever events commit, through this instance (at once) or another (when a read finds them),
   * without reading them: how the outbox dispatcher learns there is work before its next tick.
   */
  onCommitted(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /**
   * A transaction of this instance committed events (commit-wake.ts): the other instances are told, then the commit
   * listeners, then a read, with or without subscribers: read at once, the events become history before anyone
   * subscribes after them (a subscriber gets what commits after it subscribed, not what committed just before).
   * Without subscribers the read fetches ids only.
   */
  committedHere(): void {
    if (this.stopped) return;
    this.announce();
    this.callCommitListeners();
    this.wake(false);
  }

  get subscriberCount(): number {
    return this.subscribed;
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
   * One read (the rule is in the class comment): the horizon and the events at or above the last one, minus those
   * already read, in one statement and so one snapshot. With subscribers it brings the events' columns too; without,
   * only what the rule needs. State changes once the statement succeeded, so a failed read is simply repeated.
   *
   * With subscribers a read brings at most `READ_PAGE` events, and says whether more may follow: a transaction with
   * more events of one unit than a subscriber may hold (`DEFAULT_MAX_BUFFERED`, event-stream.ts), or a bus catching
   * up, reached every subscriber in one read and failed them all as too slow before they could take one. Until a read
   * comes back short the horizon stays where it was and the events read stay known, so the next page is the events
   * after them and nothing is skipped or read twice.
   */
  private async read({ publish, tellListeners }: { publish: boolean; tellListeners: boolean }): Promise<boolean> {
    const withRows = publish && this.subscribed > 0;
    const rows = await forkEm(this.orm).execute<Record<string, unknown>[]>(
      outboxReadSql(withRows, [...this.unsettled.keys()]),
      [this.horizon],
      'all',
      BACKGROUND,
    );
    const horizon = String(rows[0]!.horizon);
    const found = rows.slice(1);
    const more = withRows && found.length === READ_PAGE;
    for (const row of found) this.unsettled.set(Number(row.event_id), BigInt(row.xid as string));
    if (!more) {
      const settledBelow = BigInt(horizon);
      for (const [id, xid] of this.unsettled) if (xid < settledBelow) this.unsettled.delete(id);
      this.horizon = horizon;
    }
    if (this.stopped) return false;
    if (withRows) this.publish(found.map(toOutboxEvent));
    if (found.length > 0 && tellListeners) this.callCommitListeners();
    return more;
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

  private publish(events: OutboxEvent[]): void {
    for (const event of events) {
      for (const { filter, listener } of this.subscribers.get(event.msn) ?? []) {
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

/**
 * The bus's read (its rule is in DomainEventBus's comment), one parameter: the last horizon. With rows, a page of at
 * most READ_PAGE events in id order; without, every fresh event's id. Its cost must follow the fresh events, not the
 * outbox, whatever the table's statistics (a new database has none): the xid's upper bound, always true, makes the
 * condition a range, which PostgreSQL takes for a narrow one and so reads through the xid index (with the lower
 * bound alone it took a third of the table and scanned all of it), and `offset 0` keeps that scan under the page's
 * `order by id limit` (else it walked the primary key through the whole outbox).
 */
export function outboxReadSql(withRows: boolean, knownIds: readonly number[]): string {
  const known = knownIds.length > 0 ? `and e.id <> all('{${knownIds.join(',')}}'::bigint[])` : '';
  const fresh = `select * from domain_event e where e.xid >= ?::xid8 and e.xid <= '${MAX_XID8}'::xid8 ${known}`;
  const events = withRows
    ? `select null, e.xid::text, ${OUTBOX_EVENT_COLUMNS} from (${fresh} offset 0) e order by e.id limit ${READ_PAGE}`
    : `select null, e.xid::text, e.id from (${fresh}) e`;
  return `select pg_snapshot_xmin(pg_current_snapshot())::text as horizon, null::text as xid, ${withRows ? NO_EVENT_COLUMNS : 'null::bigint as event_id'}
     union all
     (${events})
     order by event_id nulls first`;
}
