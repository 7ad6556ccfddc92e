import { createClient, type Client, type ExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import type { MerchantClient } from './merchant-client.js';
import { CONDITION_DEADLINE_MS } from './deadlines.js';

export function graphqlWsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}/graphql`;
}

/** The credentials a merchant puts in `connection_init`: its HTTP headers, by their HTTP names. */
export async function connectionParamsOf(merchant: MerchantClient): Promise<Record<string, string>> {
  const { 'Content-Type': _contentType, ...credentials } = await merchant.headers();
  return credentials;
}

/** What the socket went through, for tests that expect a refusal: whether it was acked, and how it closed. */
export interface ConnectionOutcome {
  acknowledged: boolean;
  closeCode: number;
}

/** Connects eagerly with the given `connection_init` payload and reports how the server answered. */
export function connectOnce(
  baseUrl: string,
  connectionParams: Record<string, unknown>,
  timeoutMs = CONDITION_DEADLINE_MS,
): Promise<ConnectionOutcome> {
  return new Promise((resolve, reject) => {
    let acknowledged = false;
    const timer = setTimeout(() => reject(new Error('the server neither acked nor closed the socket in time')), timeoutMs);
    const client = createClient({
      url: graphqlWsUrl(baseUrl),
      webSocketImpl: WebSocket,
      connectionParams,
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: () => undefined,
      on: {
        connected: () => {
          acknowledged = true;
          clearTimeout(timer);
          void client.dispose();
          resolve({ acknowledged, closeCode: 1000 });
        },
        closed: (event) => {
          clearTimeout(timer);
          // The socket is already closed; disposing then rejects with the close event, which says nothing new.
          void Promise.resolve(client.dispose()).catch(() => undefined);
          resolve({ acknowledged, closeCode: (event as { code: number }).code });
        },
      },
    });
  });
}

/** A graphql-ws client with one subscription whose results are collected as they arrive, each with its arrival time. */
export class Subscriber<T = any> {
  readonly results: { data: T; errors?: unknown; at: number }[] = [];
  readonly client: Client;
  private readonly waiters = new Set<() => void>();
  private unsubscribe: () => void = () => undefined;
  failure: unknown;

  constructor(baseUrl: string, connectionParams: Record<string, unknown>) {
    this.client = createClient({ url: graphqlWsUrl(baseUrl), webSocketImpl: WebSocket, connectionParams, retryAttempts: 0 });
  }

  subscribe(query: string, variables: Record<string, unknown> = {}): this {
    this.unsubscribe = this.client.subscribe<T>(
      { query, variables },
      {
        next: (result: ExecutionResult<T>) => {
          this.results.push({ data: result.data as T, errors: result.errors, at: performance.now() });
          this.notify();
        },
        error: (error) => {
          this.failure = error;
          this.notify();
        },
        complete: () => this.notify(),
      },
    );
    return this;
  }

  /** Resolves once `count` results arrived; fails after `timeoutMs` or when the subscription errs. */
  async waitFor(count: number, timeoutMs = CONDITION_DEADLINE_MS): Promise<{ data: T; errors?: unknown; at: number }[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.results.length < count) {
      if (this.failure) throw new Error(`subscription failed: ${describeFailure(this.failure)}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`expected ${count} results within ${timeoutMs} ms, got ${this.results.length}: ${JSON.stringify(this.results)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
    return this.results.slice(0, count);
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.client.dispose();
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter();
    this.waiters.clear();
  }
}

/** Polls a condition the server reaches asynchronously (a subscription registered, a row written), up to a deadline. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = CONDITION_DEADLINE_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** graphql-ws reports an Error, a close event or an array of GraphQL errors; say which, and what it holds. */
export function describeFailure(failure: unknown): string {
  if (failure instanceof Error) return `${failure.name}: ${failure.message}`;
  if (failure && typeof failure === 'object' && 'code' in failure)
    return `socket closed ${String(failure.code)} ${String((failure as { reason?: unknown }).reason ?? '')}`;
  return JSON.stringify(failure);
}
