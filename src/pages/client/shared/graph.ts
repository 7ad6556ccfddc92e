import { createClient, type Client } from 'graphql-ws';
import type { TokenSource } from './credentials.js';

/**
 * The ids of the dashboard's documents, by their text: put in at build (scripts/build-pages.mjs) from the list the
 * service registers as trusted documents. A document listed is named by its id, so it runs where only registered
 * documents may (PAYGRAPH_TRUSTED_DOCUMENTS=required); any other is sent as text.
 */
declare const __DOCUMENT_IDS__: Record<string, string>;

/** The request's fields for a document: its registered id, or its text. */
function documentFields(query: string): { query: string } | { documentId: string } {
  const documentId = __DOCUMENT_IDS__[query];
  return documentId === undefined ? { query } : { documentId };
}

export interface GraphError {
  message: string;
  extensions?: { code?: string };
}

export class GraphRequestError extends Error {
  constructor(readonly errors: GraphError[]) {
    super(errors.map((e) => e.message).join('; '));
  }
}

/**
 * The graph for one sales unit: queries over POST /graphql and subscriptions over graphql-ws on the same path,
 * authenticated with the same headers (in `connection_init` on the socket). The socket reconnects for as long as
 * the page lives, with a fresh token each time; `onReconnect` listeners catch up on what they missed.
 */
export class Graph {
  private readonly ws: Client;
  private readonly reconnectListeners = new Set<() => void>();
  private readonly statusListeners = new Set<(connected: boolean) => void>();
  connected = false;

  constructor(
    private readonly tokens: TokenSource,
    readonly msn: string,
  ) {
    this.ws = createClient({
      url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
      connectionParams: async () => this.headers(),
      lazy: false,
      retryAttempts: Number.POSITIVE_INFINITY,
      shouldRetry: () => true,
      retryWait: async (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** retries, 3_000))),
      keepAlive: 10_000,
      on: {
        connected: (_socket, _payload, wasRetry) => {
          this.setConnected(true);
          if (wasRetry) for (const listener of this.reconnectListeners) listener();
        },
        closed: (event) => {
          this.setConnected(false);
          // An expired token closes the socket with 4403: the next connection signs in again.
          if ((event as CloseEvent | undefined)?.code === 4403) void this.tokens.fresh().catch(() => undefined);
        },
      },
    });
  }

  async headers(): Promise<Record<string, string>> {
    return {
      Authorization: `Bearer ${await this.tokens.token()}`,
      'Ocp-Apim-Subscription-Key': this.tokens.subscriptionKey,
      'Merchant-Serial-Number': this.msn,
    };
  }

  async query<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const send = async () =>
      fetch('/graphql', {
        method: 'POST',
        headers: { ...(await this.headers()), 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...documentFields(query), variables }),
      });
    let response = await send();
    // A token the service no longer takes (it ran out, or the test clock moved past its hour): sign in again, once.
    if (response.status === 401) {
      await this.tokens.fresh();
      response = await send();
    }
    const body = (await response.json()) as { data?: T; errors?: GraphError[] };
    if (body.errors?.length) throw new GraphRequestError(body.errors);
    if (!body.data) throw new Error(`The graph answered ${response.status} without data`);
    return body.data;
  }

  /** Results of a subscription until the returned function is called; survives reconnects. */
  subscribe<T>(query: string, variables: Record<string, unknown>, onData: (data: T) => void, onError?: () => void): () => void {
    // graphql-ws requires a query: empty beside a registered document's id.
    return this.ws.subscribe<T>(
      { query: '', ...documentFields(query), variables },
      {
        next: (result) => {
          if (result.data) onData(result.data as T);
          else if (result.errors?.length) onError?.();
        },
        error: () => onError?.(),
        complete: () => undefined,
      },
    );
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  onStatus(listener: (connected: boolean) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  dispose(): void {
    void this.ws.dispose();
  }

  private setConnected(connected: boolean): void {
    this.connected = connected;
    for (const listener of this.statusListeners) listener(connected);
  }
}
