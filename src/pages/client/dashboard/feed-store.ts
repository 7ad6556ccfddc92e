import type { Graph } from '../shared/graph.js';
import { FEED_SUBSCRIPTION, RECENT_EVENTS, type Notification } from './queries.js';

const KEEP = 300;
const CATCH_UP = 100;
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 10_000;

/**
 * The live feed: the subscription's events, newest first, after the recent history the graph holds. After a
 * reconnect (a server restart, a network drop) the subscription resumes after the newest event held, so nothing is
 * lost, and events are merged by id, so nothing shows twice.
 */
export class FeedStore {
  items: Notification[] = [];
  /** Bumped at every change, so views (and the totals) know to refresh. */
  version = 0;
  private readonly ids = new Set<string>();
  private readonly latest = new Map<string, { state: string; outcome: string; at: string }>();
  private readonly listeners = new Set<() => void>();
  private readonly stops: (() => void)[] = [];
  private stopLive: (() => void) | undefined;
  private retryMs = FIRST_RETRY_MS;
  /** The newest event id held (event ids ascend): where the subscription resumes. */
  private newestEventId: string | undefined;

  constructor(private readonly graph: Graph) {}

  start(): void {
    this.follow();
    this.stops.push(
      this.graph.onReconnect(() => {
        // Without an event to resume after, the history is what there is to catch up from.
        if (this.newestEventId === undefined) void this.loadHistory(CATCH_UP);
        this.follow();
      }),
    );
    void this.loadHistory(50);
  }

  stop(): void {
    this.stopLive?.();
    for (const stop of this.stops.splice(0)) stop();
  }

  /**
   * The live subscription, resumed after the newest event the page holds: the service replays what came since (a
   * reconnect, a server restart) in order, then goes on live; ids already shown are skipped here too.
   */
  private follow(): void {
    this.stopLive?.();
    const after = this.newestEventId;
    this.stopLive = this.graph.subscribe<{ paymentEvents: Notification }>(
      FEED_SUBSCRIPTION,
      after ? { after } : {},
      (data) => {
        this.retryMs = FIRST_RETRY_MS;
        this.add([data.paymentEvents]);
      },
      () => this.followAgainLater(),
    );
  }

  /**
   * The subscription ended with an error (the page fell too far behind, the service failed an event): follow again
   * after the newest event held, so nothing is lost, or from the recent history if none is held; after a pause
   * that doubles while it keeps failing, so a lasting failure does not spin.
   */
  private followAgainLater(): void {
    this.stopLive = undefined;
    const timer = setTimeout(() => {
      this.stops.splice(this.stops.indexOf(cancel), 1);
      void (this.newestEventId === undefined ? this.loadHistory(CATCH_UP) : Promise.resolve()).then(() => this.follow());
    }, this.retryMs);
    const cancel = () => clearTimeout(timer);
    this.stops.push(cancel);
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async loadHistory(first: number): Promise<void> {
    try {
      const data = await this.graph.query<{ recentPaymentEvents: { edges: { node: Notification }[] } }>(RECENT_EVENTS, { first });
      this.add(data.recentPaymentEvents.edges.map((edge) => edge.node));
    } catch {
      // The socket's next reconnect reads the history again.
    }
  }

  /** The payment's state as its newest event known here left it. */
  stateOf(reference: string): string | undefined {
    return this.latest.get(reference)?.state;
  }

  /** What became of the payment (PaymentOutcome) as its newest event known here left it. */
  outcomeOf(reference: string): string | undefined {
    return this.latest.get(reference)?.outcome;
  }

  private add(notifications: Notification[]): void {
    const fresh = notifications.filter((n) => !this.ids.has(n.event.id));
    if (fresh.length === 0) return;
    for (const n of fresh) {
      this.ids.add(n.event.id);
      if (this.newestEventId === undefined || Number(n.event.eventId) > Number(this.newestEventId)) this.newestEventId = n.event.eventId;
      const known = this.latest.get(n.payment.reference);
      if (!known || n.event.timestamp >= known.at)
        this.latest.set(n.payment.reference, { state: n.payment.state, outcome: n.payment.outcome, at: n.event.timestamp });
    }
    const merged = [...fresh, ...this.items];
    merged.sort((a, b) => (a.event.timestamp < b.event.timestamp ? 1 : a.event.timestamp > b.event.timestamp ? -1 : 0));
    for (const dropped of merged.splice(KEEP)) this.ids.delete(dropped.event.id);
    this.items = merged;
    this.version += 1;
    for (const listener of this.listeners) listener();
  }
}
