/**
 * Subscription fan-out, the last part of `npm run bench`: `BENCH_FANOUT_SUBSCRIBERS` (1,000) graphql-ws subscribers
 * on one Paygraph instance of its own, then payment creates through REST at a fixed concurrency for a bounded time.
 * Reports the notifications delivered per second across all subscribers, the latency from each create to each
 * subscriber's receipt, and the instance's resident memory before and after the subscribers connected. The subscribers
 * live in worker threads (fan-out-subscribers.ts), the creates and their timing in this one.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { FromSubscribers, SubscribersInput, SubscribersOutput, ToSubscribers } from './fan-out-subscribers.js';
import { percentiles, type Percentiles } from './percentiles.js';
import { paymentBody } from './payment-body.js';

const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_FANOUT_CONCURRENCY ?? 4);
/**
 * Creates a second, started open loop (still at most CONCURRENCY at once): the latency at a fixed offered rate, 30 by
 * default, the rate of issue 23's own first figure (29,000 notifications a second to 1,000 subscribers). `0` sends them
 * as fast as the instance taking them answers; across instances that is the writer's pace, which the subscribers'
 * instance cannot keep up with, so the figure becomes the age of a growing backlog (bench/README.md).
 */
const CREATES_PER_S = Number(process.env.BENCH_FANOUT_CREATES_PER_S ?? 30) || undefined;
const DURATION_MS = Number(process.env.BENCH_FANOUT_DURATION_MS ?? 4000);
/**
 * Worker threads the subscribers are spread over: in one thread, the client's own event loop was part of the figure
 * (bench/README.md). More threads than cores would only add switching.
 */
const CLIENT_THREADS = Number(process.env.BENCH_FANOUT_CLIENT_THREADS ?? 2);
/** Sockets opened at once, over all threads; the rest wait, so the listen backlog never overflows into SYN retries. */
const CONNECT_BATCH = 100;
const CONNECT_TIMEOUT_MS = 20_000;
const WARM_UP_TIMEOUT_MS = 10_000;
/** After the last create: how long the notifications still on their way may take. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Subscribers spread over several documents, as dashboards differ: identical operations of one caller share one
 * execution per event, so a single document would measure only the sharing.
 */
const SUBSCRIPTIONS = [
  'subscription { paymentEvents { event { reference name amount { value } timestamp } } }',
  'subscription { paymentEvents { event { reference name amount { value currency } timestamp } payment { state } } }',
  'subscription { paymentEvents { event { reference name timestamp idempotencyKey } payment { pspReference amount { value } } } }',
  'subscription { paymentEvents(names: [CREATED, AUTHORIZED]) { event { reference name timestamp } payment { aggregate { authorizedAmount { value } capturedAmount { value } } } } }',
];
const MEASURED = 'fan-';
const WARM_UP = 'fanwarm-';

export interface FanOutResult {
  /** The creates went to another instance than the one holding the subscribers. */
  crossInstance: boolean;
  subscribers: number;
  concurrency: number;
  connectMs: number;
  rssBeforeKb: number | undefined;
  rssConnectedKb: number | undefined;
  rssAfterLoadKb: number | undefined;
  creates: number;
  createFailures: number;
  loadMs: number;
  /** Notifications of the measured creates that reached a subscriber, and how many should have. */
  delivered: number;
  expected: number;
  /** From the first create's request to the last notification's receipt. */
  deliveryMs: number;
  subscriptionErrors: number;
  fromResponse: Percentiles;
  fromRequest: Percentiles;
  /** CPU seconds per wall-clock second during the load and drain: the instance, and this process. */
  serverCores: number | undefined;
  /** The instance's CPU seconds during the load and drain: with the machine shared, its cost per notification. */
  serverCpuSeconds: number | undefined;
  clientCores: number;
  clientThreads: number;
  /** Event-loop delay during the load and drain: the thread running the creates, and the worst subscriber thread. */
  createLoopDelayP99Ms: number;
  subscriberLoopDelayP99Ms: number;
  subscriberLoopDelayMaxMs: number;
  /** CPU seconds per wall-clock second of the busiest subscriber thread: near 1, the client would be the lag. */
  busiestSubscriberThreadCores: number;
  skipped?: string;
}

interface Instance {
  child: ChildProcess;
  baseUrl: string;
}

/**
 * Starts its own instance with `startInstance` (the same way as the one the REST rows ran on, against the same
 * database), so the resident memory shows the subscribers and not the garbage of the load before. `headers` are
 * a merchant's credentials; the access token is valid on every instance.
 */
export async function runFanOut(
  startInstance: () => Promise<Instance>,
  headers: Record<string, string>,
  options: { writeUrl?: string } = {},
): Promise<FanOutResult> {
  const crossInstance = options.writeUrl !== undefined;
  // Each socket is a descriptor in this process and one in the instance, which inherits this limit.
  const fdLimit = openFileLimit();
  if (fdLimit !== undefined && fdLimit < SUBSCRIBERS + 200) {
    return {
      ...emptyResult(),
      crossInstance,
      skipped: `ulimit -n is ${fdLimit}; ${SUBSCRIBERS} subscribers need at least ${SUBSCRIBERS + 200}`,
    };
  }
  const { child, baseUrl } = await startInstance();
  const pid = child.pid!;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  // The cross-instance row writes through another instance: the events reach this one only through the database.
  const create = (reference: string) =>
    send(
      agent,
      options.writeUrl ?? baseUrl,
      '/epayment/v1/payments',
      { ...headers, 'Idempotency-Key': randomUUID() },
      paymentBody(reference, 10_000, 'Benchmark fan-out'),
    );
  const counters = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
  const [warmedCount, deliveredCount, errorCount] = [0, 1, 2];
  const count = new Int32Array(counters);
  const threads: Worker[] = [];
  try {
    // A few requests first, so the memory before is that of a running instance, not of one that never served.
    for (let i = 0; i < 5; i++) await create(`${WARM_UP}${randomUUID()}`.slice(0, 50));
    const rssBeforeKb = residentKb(pid);

    const connectionParams = {
      Authorization: headers.Authorization,
      'Ocp-Apim-Subscription-Key': headers['Ocp-Apim-Subscription-Key'],
      'Merchant-Serial-Number': headers['Merchant-Serial-Number'],
    };
    const connectStarted = performance.now();
    const threadCount = Math.max(1, Math.min(CLIENT_THREADS, SUBSCRIBERS));
    const connected: Promise<void>[] = [];
    for (let k = 0; k < threadCount; k++) {
      const first = Math.floor((k * SUBSCRIBERS) / threadCount);
      const input: SubscribersInput = {
        url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
        connectionParams,
        documents: SUBSCRIPTIONS,
        first,
        count: Math.floor(((k + 1) * SUBSCRIBERS) / threadCount) - first,
        connectBatch: Math.max(1, Math.floor(CONNECT_BATCH / threadCount)),
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        measured: MEASURED,
        warmUp: WARM_UP,
        counters,
      };
      const thread = new Worker(new URL('./fan-out-subscribers.js', import.meta.url), { workerData: input });
      threads.push(thread);
      connected.push(
        new Promise<void>((resolve, reject) => {
          thread.once('message', (message: FromSubscribers) =>
            message.type === 'connected' ? resolve() : reject(new Error(message.type === 'failed' ? message.message : message.type)),
          );
          thread.once('error', reject);
        }),
      );
    }
    await Promise.all(connected);
    const connectMs = performance.now() - connectStarted;

    // An ack does not mean the subscription is held yet: creates go on until every subscriber has seen one.
    const warmUpDeadline = performance.now() + WARM_UP_TIMEOUT_MS;
    while (Atomics.load(count, warmedCount) < SUBSCRIBERS) {
      if (performance.now() > warmUpDeadline)
        throw new Error(
          `only ${Atomics.load(count, warmedCount)} of ${SUBSCRIBERS} subscribers received a warm-up event in ${WARM_UP_TIMEOUT_MS} ms`,
        );
      await create(`${WARM_UP}${randomUUID()}`.slice(0, 50));
      await until(() => Atomics.load(count, warmedCount) === SUBSCRIBERS, 500);
    }
    // Let the last warm-up notifications land, so they are not counted as load.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const rssConnectedKb = residentKb(pid);

    const mutations: { reference: string; start: number; end: number; ok: boolean }[] = [];
    const serverCpuBefore = cpuSeconds(pid);
    const clientCpuBefore = process.cpuUsage();
    for (const thread of threads) thread.postMessage({ type: 'measure' } satisfies ToSubscribers);
    const createLoopDelay = monitorEventLoopDelay({ resolution: 5 });
    createLoopDelay.enable();
    const loadStarted = performance.now();
    const deadline = loadStarted + DURATION_MS;
    let counter = 0;
    const worker = async () => {
      while (performance.now() < deadline) {
        const n = counter++;
        if (CREATES_PER_S !== undefined) {
          const due = loadStarted + (n * 1000) / CREATES_PER_S;
          if (due >= deadline) break;
          if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
        }
        const reference = `${MEASURED}${n}-${randomUUID()}`.slice(0, 50);
        // On the wall clock the subscriber threads stamp their receipts with.
        const start = wallClock();
        const status = await create(reference);
        mutations.push({ reference, start, end: wallClock(), ok: status === 201 });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const loadMs = performance.now() - loadStarted;
    const succeeded = mutations.filter((m) => m.ok);
    const expected = succeeded.length * SUBSCRIBERS;
    await until(() => Atomics.load(count, deliveredCount) >= expected || Atomics.load(count, errorCount) > 0, DRAIN_TIMEOUT_MS);
    const wallSeconds = (performance.now() - loadStarted) / 1000;
    const serverCpuAfter = cpuSeconds(pid);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    createLoopDelay.disable();
    const rssAfterLoadKb = residentKb(pid);
    const outputs = await Promise.all(
      threads.map(
        (thread) =>
          new Promise<SubscribersOutput>((resolve) => {
            thread.once('message', (message: FromSubscribers) => message.type === 'collected' && resolve(message));
            thread.postMessage({ type: 'collect' } satisfies ToSubscribers);
          }),
      ),
    );
    const receipts = new Map<string, number[]>();
    for (const output of outputs)
      for (const [key, times] of Object.entries(output.receipts)) receipts.set(key, [...(receipts.get(key) ?? []), ...times]);
    const delivered = Atomics.load(count, deliveredCount);
    const firstError = outputs.find((output) => output.firstError !== undefined)?.firstError;
    if (firstError !== undefined) process.stderr.write(`fan-out: first subscription error: ${firstError}\n`);
    const lastReceipt = Math.max(0, ...outputs.flatMap((output) => Object.values(output.receipts).map((times) => Math.max(...times))));

    const fromResponse: number[] = [];
    const fromRequest: number[] = [];
    for (const mutation of succeeded) {
      for (const at of receipts.get(`${mutation.reference} CREATED`) ?? []) {
        fromResponse.push(at - mutation.end);
        fromRequest.push(at - mutation.start);
      }
    }
    return {
      crossInstance,
      subscribers: SUBSCRIBERS,
      concurrency: CONCURRENCY,
      connectMs,
      rssBeforeKb,
      rssConnectedKb,
      rssAfterLoadKb,
      creates: succeeded.length,
      createFailures: mutations.length - succeeded.length,
      loadMs,
      delivered,
      expected,
      deliveryMs: (lastReceipt || wallClock()) - (performance.timeOrigin + loadStarted),
      subscriptionErrors: Atomics.load(count, errorCount),
      fromResponse: percentiles(fromResponse),
      fromRequest: percentiles(fromRequest),
      serverCores:
        serverCpuBefore !== undefined && serverCpuAfter !== undefined ? (serverCpuAfter - serverCpuBefore) / wallSeconds : undefined,
      clientCores: (clientCpu.user + clientCpu.system) / 1e6 / wallSeconds,
      clientThreads: threadCount,
      createLoopDelayP99Ms: createLoopDelay.percentile(99) / 1e6,
      subscriberLoopDelayP99Ms: Math.max(...outputs.map((output) => output.loopDelayP99Ms)),
      subscriberLoopDelayMaxMs: Math.max(...outputs.map((output) => output.loopDelayMaxMs)),
      busiestSubscriberThreadCores: Math.max(...outputs.map((output) => output.cpuSeconds)) / wallSeconds,
      serverCpuSeconds: serverCpuBefore !== undefined && serverCpuAfter !== undefined ? serverCpuAfter - serverCpuBefore : undefined,
    };
  } finally {
    agent.destroy();
    // The instance first, so it closes the sockets itself (1012) and exits through its graceful shutdown, which
    // writes its CPU profile under BENCH_CPU_PROF; the clients, told not to retry, then go with their threads.
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    await Promise.all(
      threads.map(async (thread) => {
        const ended = new Promise((resolve) => thread.once('exit', resolve));
        thread.postMessage({ type: 'close' } satisfies ToSubscribers);
        await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        await thread.terminate();
      }),
    );
  }
}

/** The report's section: a sentence on the set-up and a table of the figures. */
export function renderFanOut(r: FanOutResult): string {
  const heading = r.crossInstance ? '### Subscription fan-out across instances (graphql-ws)' : '### Subscription fan-out (graphql-ws)';
  if (r.skipped) return `${heading}\n\nSkipped: ${r.skipped}.`;
  const mb = (kb: number | undefined) => (kb === undefined ? 'n/a' : (kb / 1024).toFixed(1));
  const perConnection =
    r.rssBeforeKb !== undefined && r.rssConnectedKb !== undefined ? ((r.rssConnectedKb - r.rssBeforeKb) / r.subscribers).toFixed(1) : 'n/a';
  const ms = (p: Percentiles) => `${p.p50.toFixed(1)} | ${p.p99.toFixed(1)} | ${p.max.toFixed(1)}`;
  const lines = [
    heading,
    '',
    `${r.subscribers} subscribers to \`paymentEvents\`, spread evenly over ${SUBSCRIPTIONS.length} different documents, on a fresh instance, ` +
      `each with its own socket; then REST creates${r.crossInstance ? ' through another instance on the same database' : ''} at concurrency ${r.concurrency}${CREATES_PER_S === undefined ? '' : `, at most ${CREATES_PER_S} a second,`} for ${(r.loadMs / 1000).toFixed(1)} s, each CREATED event ` +
      `fanned out to every subscriber. Latency is from the create's HTTP request start, and from its response (negative when the ` +
      `notification beats the response), to a subscriber's receipt, correlated by reference and event name, over every ` +
      `(event, subscriber) pair. Loopback only: the load generator (the creates in one thread, its ${r.subscribers} clients spread over ${r.clientThreads} worker threads) and the instance share the machine's ` +
      `CPU cores (instance ${r.serverCores?.toFixed(2) ?? 'n/a'} cores, load generator ${r.clientCores.toFixed(2)} cores during load and drain).`,
    '',
    '| figure | value |',
    '|---|---:|',
    `| subscribers connected and acknowledged | ${r.subscribers} in ${(r.connectMs / 1000).toFixed(1)} s |`,
    `| creates (events) during the load | ${r.creates} (${((r.creates * 1000) / r.loadMs).toFixed(0)}/s), ${r.createFailures} failed |`,
    `| notifications delivered | ${r.delivered} of ${r.expected} in ${(r.deliveryMs / 1000).toFixed(1)} s, ${r.subscriptionErrors} subscription errors |`,
    `| notifications per second, all subscribers | ${((r.delivered * 1000) / r.deliveryMs).toFixed(0)} |`,
    // On a machine shared with other work the latency follows the CPU the instance gets; its CPU per notification does not.
    `| instance CPU per notification (creates included) | ${r.serverCpuSeconds !== undefined && r.delivered > 0 ? ((r.serverCpuSeconds * 1e6) / r.delivered).toFixed(0) : 'n/a'} µs |`,
    // Whether the client is the lag: its threads' loop delay, and how close its busiest subscriber thread came to a core.
    `| load generator: event-loop delay p99, creates' thread / worst subscriber thread (max) | ${r.createLoopDelayP99Ms.toFixed(1)} / ${r.subscriberLoopDelayP99Ms.toFixed(1)} (${r.subscriberLoopDelayMaxMs.toFixed(1)}) ms |`,
    `| load generator: busiest subscriber thread | ${r.busiestSubscriberThreadCores.toFixed(2)} cores |`,
    '',
    '| latency to the subscriber | p50 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|',
    `| from the create's request start | ${ms(r.fromRequest)} |`,
    `| from the create's response | ${ms(r.fromResponse)} |`,
    '',
    '| instance resident memory (VmRSS) | MB |',
    '|---|---:|',
    `| before the subscribers | ${mb(r.rssBeforeKb)} |`,
    `| with ${r.subscribers} subscribers, idle | ${mb(r.rssConnectedKb)} |`,
    `| after the load | ${mb(r.rssAfterLoadKb)} |`,
    `| per subscriber (idle − before) / ${r.subscribers} | ${perConnection} KB |`,
  ];
  return lines.join('\n');
}

function emptyResult(): FanOutResult {
  const none = { p50: 0, p99: 0, max: 0 };
  return {
    crossInstance: false,
    subscribers: SUBSCRIBERS,
    concurrency: CONCURRENCY,
    connectMs: 0,
    rssBeforeKb: undefined,
    rssConnectedKb: undefined,
    rssAfterLoadKb: undefined,
    creates: 0,
    createFailures: 0,
    loadMs: 0,
    delivered: 0,
    expected: 0,
    deliveryMs: 0,
    subscriptionErrors: 0,
    clientThreads: 0,
    createLoopDelayP99Ms: 0,
    subscriberLoopDelayP99Ms: 0,
    subscriberLoopDelayMaxMs: 0,
    busiestSubscriberThreadCores: 0,
    fromResponse: none,
    fromRequest: none,
    serverCores: undefined,
    serverCpuSeconds: undefined,
    clientCores: 0,
  };
}

function send(agent: Agent, baseUrl: string, path: string, headers: Record<string, string>, body: unknown): Promise<number> {
  const url = new URL(baseUrl);
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(payload);
  });
}

/** Linux only; undefined elsewhere. */
function residentKb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** User plus system CPU seconds of a process (fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

function openFileLimit(): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Milliseconds on the wall clock, at the resolution of `performance.now()`: comparable across threads. */
function wallClock(): number {
  return performance.timeOrigin + performance.now();
}
