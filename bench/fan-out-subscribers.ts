/**
 * One share of the fan-out bench's subscribers, in a worker thread of the load generator (fan-out.ts starts
 * several). A thousand sockets in one thread put the client's own event loop in the figure: the receipt of a socket
 * read late was stamped late, and the creates' responses, handled in the same loop, waited behind the messages
 * (bench/README.md). Each thread stamps its receipts on the shared wall clock (`performance.timeOrigin` + `now()`),
 * so the main thread compares them with the creates' responses.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { createClient, type Client, type ExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';

export interface SubscribersInput {
  url: string;
  connectionParams: Record<string, unknown>;
  /** The documents, and which of them each of this thread's subscribers holds (its global index modulo their number). */
  documents: string[];
  first: number;
  count: number;
  /** Sockets this thread opens at once. */
  connectBatch: number;
  connectTimeoutMs: number;
  measured: string;
  warmUp: string;
  /**
   * Shared with the main thread, which watches them while it runs the creates: [0] subscribers that saw a warm-up
   * event, [1] measured notifications received, [2] subscription errors.
   */
  counters: SharedArrayBuffer;
}

/** What a thread hands back when asked (`collect`): its receipts by `reference name`, on the shared wall clock. */
export interface SubscribersOutput {
  receipts: Record<string, number[]>;
  firstError?: string;
  /** This thread's event-loop delay during the measured window, and its CPU seconds then. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  cpuSeconds: number;
}

export type ToSubscribers = { type: 'measure' } | { type: 'collect' } | { type: 'close' };
export type FromSubscribers = { type: 'connected' } | { type: 'failed'; message: string } | ({ type: 'collected' } & SubscribersOutput);

interface Notification {
  paymentEvents: { event: { reference: string; name: string } };
}

const input = workerData as SubscribersInput;
const port = parentPort!;
const counters = new Int32Array(input.counters);
const wallClock = () => performance.timeOrigin + performance.now();
const receipts = new Map<string, number[]>();
const warmed = new Set<number>();
const clients: Client[] = [];
let firstError: string | undefined;
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
let cpuAtMeasure = process.threadCpuUsage();

async function connect(): Promise<void> {
  const end = input.first + input.count;
  for (let batchStart = input.first; batchStart < end; batchStart += input.connectBatch) {
    const batch: Promise<void>[] = [];
    for (let i = batchStart; i < Math.min(batchStart + input.connectBatch, end); i++) batch.push(subscribe(i));
    await withTimeout(Promise.all(batch), input.connectTimeoutMs, `${input.count} sockets to be acknowledged`);
  }
}

function subscribe(i: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const client = createClient({
      url: input.url,
      webSocketImpl: WebSocket,
      connectionParams: input.connectionParams,
      retryAttempts: 0,
      on: { connected: () => resolve(), closed: (event) => reject(new Error(`socket ${i} closed: ${explain(event)}`)) },
    });
    clients.push(client);
    client.subscribe<Notification>(
      { query: input.documents[i % input.documents.length]! },
      {
        next: (result: ExecutionResult<Notification>) => {
          const at = wallClock();
          const event = result.data?.paymentEvents.event;
          if (!event) return;
          if (event.reference.startsWith(input.warmUp)) {
            if (!warmed.has(i)) {
              warmed.add(i);
              Atomics.add(counters, 0, 1);
            }
          } else if (event.reference.startsWith(input.measured)) {
            const key = `${event.reference} ${event.name}`;
            const times = receipts.get(key);
            if (times) times.push(at);
            else receipts.set(key, [at]);
            Atomics.add(counters, 1, 1);
          }
        },
        error: (error) => {
          Atomics.add(counters, 2, 1);
          firstError ??= explain(error);
          reject(new Error(`subscription ${i} failed: ${explain(error)}`));
        },
        complete: () => undefined,
      },
    );
  });
}

port.on('message', (message: ToSubscribers) => {
  if (message.type === 'measure') {
    loopDelay.reset();
    loopDelay.enable();
    cpuAtMeasure = process.threadCpuUsage();
  } else if (message.type === 'collect') {
    loopDelay.disable();
    const cpu = process.threadCpuUsage(cpuAtMeasure);
    const output: FromSubscribers = {
      type: 'collected',
      receipts: Object.fromEntries(receipts),
      firstError,
      loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      loopDelayMaxMs: loopDelay.max / 1e6,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
    port.postMessage(output);
  } else {
    // Told not to retry, the clients go; the thread then ends with nothing left on its loop.
    void Promise.all(clients.map((client) => Promise.resolve(client.dispose()).catch(() => undefined))).then(() => port.close());
  }
});

connect().then(
  () => port.postMessage({ type: 'connected' } satisfies FromSubscribers),
  (error: unknown) => port.postMessage({ type: 'failed', message: explain(error) } satisfies FromSubscribers),
);

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function explain(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (value && typeof value === 'object' && 'code' in value)
    return `close ${String(value.code)} ${String((value as { reason?: unknown }).reason ?? '')}`;
  return JSON.stringify(value);
}
