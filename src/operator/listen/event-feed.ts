import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { PaygraphClient, Principal } from '../network/paygraph-client.js';
import type { ListenedEvent } from './forwarder.js';

/** Events one page of the catch-up brings (the graph's cap on `first`). */
export const CATCH_UP_PAGE = 100;

const EVENT_FIELDS = 'eventId name reference webhookBody';

const PAGE_QUERY = `query ListenCatchUp($after: ID, $filter: StreamEventFilter) {
  events(first: ${CATCH_UP_PAGE}, order: OLDEST_FIRST, afterEventId: $after, filter: $filter) {
    edges { node { ${EVENT_FIELDS} } }
    pageInfo { hasNextPage }
  }
}`;

const NEWEST_QUERY = `query ListenStart { events(first: 1) { edges { node { eventId } } } }`;

const UNITS_QUERY = `query ListenUnits { salesUnits { msn } }`;

const LIVE_SUBSCRIPTION = `subscription Listen($after: ID, $names: [String!]) {
  streamEvents(after: $after, names: $names) { ${EVENT_FIELDS} }
}`;

/** The live stream failed in a way a reconnect cannot mend (the graph refused the subscription). */
export class LiveRefused extends Error {}

/** The live stream's connection closed or failed: reconnect and resume from the cursor. */
export class LiveLost extends Error {}

/**
 * One sales unit's event stream, read as a client of the graph: pages of the oldest-first read after an event id for a
 * catch-up of any length, then the `streamEvents` subscription resuming after the last of them, live.
 */
export class EventFeed {
  constructor(
    private readonly client: PaygraphClient,
    private readonly principal: Principal,
    private readonly names: readonly string[] | undefined,
  ) {}

  /** The sales units the credentials act for on their own (a merchant's), when no MSN is named. */
  static async ownUnits(client: PaygraphClient, principal: Principal): Promise<string[]> {
    const data = await client.graph<{ salesUnits: { msn: string }[] }>(principal, UNITS_QUERY);
    return data.salesUnits.map((u) => u.msn);
  }

  /** The id of the unit's newest event, or "0" (the stream's start) when it has none. */
  async newestEventId(): Promise<string> {
    const data = await this.client.graph<{ events: { edges: { node: { eventId: string } }[] } }>(this.principal, NEWEST_QUERY);
    return data.events.edges[0]?.node.eventId ?? '0';
  }

  /** The events after `eventId`, oldest first, one page; `more` says whether another page follows. */
  async page(eventId: string): Promise<{ events: ListenedEvent[]; more: boolean }> {
    const data = await this.client.graph<{
      events: { edges: { node: ListenedEvent }[]; pageInfo: { hasNextPage: boolean } };
    }>(this.principal, PAGE_QUERY, { after: eventId, filter: this.names ? { names: this.names } : null });
    return { events: data.events.edges.map((e) => e.node), more: data.events.pageInfo.hasNextPage };
  }

  /**
   * The live stream after `eventId`: each event is handed to `onEvent` as it arrives (the caller queues them); the
   * promise settles when the stream ends: LiveLost for a lost connection, LiveRefused for a refusal.
   */
  live(eventId: string, onEvent: (event: ListenedEvent) => void): { ended: Promise<never>; close(): Promise<void> } {
    const socket: Client = createClient({
      url: `${this.client.baseUrl.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      // The same headers as an HTTP request, by their HTTP names; a fresh token after an expired one.
      connectionParams: () => this.client.authorization(this.principal),
      retryAttempts: 0,
      lazy: true,
    });
    let unsubscribe: () => void = () => undefined;
    const ended = new Promise<never>((_, reject) => {
      unsubscribe = socket.subscribe<{ streamEvents: ListenedEvent }>(
        { query: LIVE_SUBSCRIPTION, variables: { after: eventId, names: this.names ?? null } },
        {
          next: (result) => {
            if (result.errors?.length) reject(new LiveRefused(result.errors[0]!.message));
            else if (result.data) onEvent(result.data.streamEvents);
          },
          error: (error: unknown) => {
            if (Array.isArray(error)) reject(new LiveRefused((error as { message: string }[])[0]?.message ?? 'refused'));
            else {
              const close = error as { code?: unknown; reason?: unknown };
              // 4403: the token expired or was refused; the next connection asks for a fresh one.
              if (close.code === 4403) this.client.forgetToken(this.principal);
              reject(
                new LiveLost(typeof close.code === 'number' ? `closed ${close.code} ${String(close.reason ?? '')}`.trim() : String(error)),
              );
            }
          },
          complete: () => reject(new LiveLost('the service ended the stream')),
        },
      );
    });
    ended.catch(() => undefined);
    return {
      ended,
      close: async () => {
        unsubscribe();
        await socket.dispose();
      },
    };
  }
}
