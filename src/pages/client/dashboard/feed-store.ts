import type { Graph } from '../shared/graph.js';
import { FEED_SUBSCRIPTION, RECENT_EVENTS, type Notification } from './queries.js';

const KEEP = 300;
const CATCH_UP = 100;

/**
 * The live feed: the subscription's events, newest first, after the recent history the graph holds. After a
 * reconnect (a server restart, a network drop) the history is read again and whatever the socket missed is merged
 * in by event id, so nothing is lost and nothing shows twice.
 */
export class FeedStore {
  items: Notification[] = [];
  /** Bumped at every change, so views (and the totals) know to refresh. */
  version = 0;
  private readonly ids = new Set<string>();
  private readonly latest = new Map<string, { state: string; at: string }>();
  private readonly listeners = new Set<() => void>();
  private readonly stops: (() => void)[] = [];

  constructor(private readonly graph: Graph) {}

  start(): void {
    this.stops.push(this.graph.subscribe<{ paymentEvents: Notification }>(FEED_SUBSCRIPTION, {}, (data) => this.add([data.paymentEvents])));
    this.stops.push(this.graph.onReconnect(() => void this.loadHistory(CATCH_UP)));
    void this.loadHistory(50);
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
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

  private add(notifications: Notification[]): void {
    const fresh = notifications.filter((n) => !this.ids.has(n.event.id));
    if (fresh.length === 0) return;
    for (const n of fresh) {
      this.ids.add(n.event.id);
      const known = this.latest.get(n.payment.reference);
      if (!known || n.event.timestamp >= known.at) this.latest.set(n.payment.reference, { state: n.payment.state, at: n.event.timestamp });
    }
    const merged = [...fresh, ...this.items];
    merged.sort((a, b) => (a.event.timestamp < b.event.timestamp ? 1 : a.event.timestamp > b.event.timestamp ? -1 : 0));
    for (const dropped of merged.splice(KEEP)) this.ids.delete(dropped.event.id);
    this.items = merged;
    this.version += 1;
    for (const listener of this.listeners) listener();
  }
}
