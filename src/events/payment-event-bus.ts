import { forkEm, type Orm } from '../db/orm.js';
import { logError } from '../http/request-log.js';
import { PaymentEvent } from '../payments/payment-event.entity.js';
import type { NotificationListener } from './notification-listener.js';

/** The channel the payment_event insert trigger notifies (Migration20261122000003PaymentEventNotify). */
export const PAYMENT_EVENT_CHANNEL = 'payment_event';

/** Rows read per statement while catching up after a reconnect. */
const CATCH_UP_PAGE = 1_000;
/** Ids remembered to drop a notification that a catch-up already published. */
const RECENT_IDS = 10_000;

export type PaymentEventListener = (event: PaymentEvent) => void;

interface Subscriber {
  msn: string;
  listener: PaymentEventListener;
}

/**
 * Fans committed payment events out to this process's subscribers. Every instance LISTENs on the database, so
 * an event committed through any instance reaches subscribers on all of them. A notification carries only the
 * event id; ids that arrive together are read in one statement, and a subscriber gets only its sales unit's
 * events, in commit order.
 */
export class PaymentEventBus {
  private readonly subscribers = new Set<Subscriber>();
  private readonly commitListeners: (() => void)[] = [];
  private pending: number[] = [];
  private flushScheduled = false;
  /** Reads run one after another, so events leave in the order their notifications arrived. */
  private delivering: Promise<void> = Promise.resolve();
  private highestSeenId = 0;
  private readonly recentIds = new Set<number>();
  private stopped = false;

  constructor(
    private readonly orm: Orm,
    private readonly notifications: NotificationListener,
  ) {}

  async start(): Promise<void> {
    await this.notifications.start(
      (payload) => this.onNotification(payload),
      () => this.catchUp(),
    );
    // A catch-up reads from the newest event this instance knows of; before any notification, that is the newest
    // event at start, so a reconnect never replays history.
    const newest = await forkEm(this.orm).findOne(PaymentEvent, { id: { $gt: 0 } }, { orderBy: { id: 'desc' }, fields: ['id'] });
    this.highestSeenId = Math.max(this.highestSeenId, newest?.id ?? 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.notifications.stop();
    this.subscribers.clear();
    await this.delivering;
  }

  /** Calls `listener` with each committed event of `msn` from now on; returns the unsubscribe function. */
  subscribe(msn: string, listener: PaymentEventListener): () => void {
    const subscriber = { msn, listener };
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
    this.highestSeenId = Math.max(this.highestSeenId, id);
    for (const listener of this.commitListeners) listener();
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

  /** After a dropped LISTEN connection: events committed meanwhile sent notifications nobody heard. */
  private catchUp(): void {
    let after = this.highestSeenId;
    if (this.subscribers.size === 0) return;
    this.enqueue(async () => {
      for (;;) {
        const events = await forkEm(this.orm).find(PaymentEvent, { id: { $gt: after } }, { orderBy: { id: 'asc' }, limit: CATCH_UP_PAGE });
        for (const event of events) this.highestSeenId = Math.max(this.highestSeenId, event.id);
        this.publish(events);
        if (events.length < CATCH_UP_PAGE || this.stopped) return;
        after = events[events.length - 1]!.id;
      }
    });
  }

  private enqueue(work: () => Promise<void>): void {
    // Work queued just before stop must not touch a database that is closing.
    this.delivering = this.delivering
      .then(() => (this.stopped ? undefined : work()))
      .catch((error: unknown) => logError('payment event fan-out failed', error));
  }

  private async deliverIds(ids: number[]): Promise<void> {
    const wanted = ids.filter((id) => !this.recentIds.has(id));
    if (wanted.length === 0 || this.subscribers.size === 0) return;
    const rows = await forkEm(this.orm).find(PaymentEvent, { id: { $in: wanted } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    this.publish(wanted.flatMap((id) => byId.get(id) ?? []));
  }

  private publish(events: PaymentEvent[]): void {
    for (const event of events) {
      if (this.recentIds.has(event.id)) continue;
      this.remember(event.id);
      for (const subscriber of this.subscribers) {
        if (subscriber.msn !== event.msn) continue;
        try {
          subscriber.listener(event);
        } catch (error) {
          logError('payment event subscriber failed', error, { eventId: event.id });
        }
      }
    }
  }

  private remember(id: number): void {
    this.recentIds.add(id);
    if (this.recentIds.size > RECENT_IDS) this.recentIds.delete(this.recentIds.values().next().value!);
  }
}
