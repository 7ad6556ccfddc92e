/**
 * Subscription fan-out, the last part of `npm run bench`: `BENCH_FANOUT_SUBSCRIBERS` (1,000) graphql-ws subscribers
 * on one Paygraph instance of its own, then payment creates through REST at a fixed concurrency for a bounded time.
 * Reports the notifications delivered per second across all subscribers, the latency from each create to each
 * subscriber's receipt, and the instance's resident memory before and after the subscribers connected.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createClient, type Client, type ExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import { percentiles, type Percentiles } from './percentiles.js';
import { paymentBody } from './payment-body.js';

const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_FANOUT_CONCURRENCY ?? 4);
const DURATION_MS = Number(process.env.BENCH_FANOUT_DURATION_MS ?? 4000);
/** Sockets opened at once; the rest wait, so the listen backlog never overflows into SYN retries. */
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

interface Notification {
  paymentEvents: { event: { reference: string; name: string; amount: { value: number }; timestamp: string } };
}

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
  const clients: Client[] = [];
  try {
    // A few requests first, so the memory before is that of a running instance, not of one that never served.
    for (let i = 0; i < 5; i++) await create(`${WARM_UP}${randomUUID()}`.slice(0, 50));
    const rssBeforeKb = residentKb(pid);

    const receipts = new Map<string, number[]>();
    const warmed = new Set<number>();
    let delivered = 0;
    let lastReceipt = 0;
    let subscriptionErrors = 0;
    let firstError: unknown;
    const connectionParams = {
      Authorization: headers.Authorization,
      'Ocp-Apim-Subscription-Key': headers['Ocp-Apim-Subscription-Key'],
      'Merchant-Serial-Number': headers['Merchant-Serial-Number'],
    };

    const connectStarted = performance.now();
    for (let first = 0; first < SUBSCRIBERS; first += CONNECT_BATCH) {
      const batch: Promise<void>[] = [];
      for (let i = first; i < Math.min(first + CONNECT_BATCH, SUBSCRIBERS); i++) {
        batch.push(
          new Promise<void>((resolve, reject) => {
            const client = createClient({
              url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
              webSocketImpl: WebSocket,
              connectionParams,
              retryAttempts: 0,
              on: { connected: () => resolve(), closed: (event) => reject(new Error(`socket ${i} closed: ${explain(event)}`)) },
            });
            clients.push(client);
            client.subscribe<Notification>(
              { query: SUBSCRIPTIONS[i % SUBSCRIPTIONS.length]! },
              {
                next: (result: ExecutionResult<Notification>) => {
                  const at = performance.now();
                  const event = result.data?.paymentEvents.event;
                  if (!event) return;
                  if (event.reference.startsWith(WARM_UP)) warmed.add(i);
                  else if (event.reference.startsWith(MEASURED)) {
                    const key = `${event.reference} ${event.name}`;
                    const times = receipts.get(key);
                    if (times) times.push(at);
                    else receipts.set(key, [at]);
                    delivered++;
                    lastReceipt = at;
                  }
                },
                error: (error) => {
                  subscriptionErrors++;
                  firstError ??= error;
                  reject(new Error(`subscription ${i} failed: ${explain(error)}`));
                },
                complete: () => undefined,
              },
            );
          }),
        );
      }
      await withTimeout(Promise.all(batch), CONNECT_TIMEOUT_MS, `${SUBSCRIBERS} sockets to be acknowledged`);
    }
    const connectMs = performance.now() - connectStarted;

    // An ack does not mean the subscription is held yet: creates go on until every subscriber has seen one.
    const warmUpDeadline = performance.now() + WARM_UP_TIMEOUT_MS;
    while (warmed.size < SUBSCRIBERS) {
      if (performance.now() > warmUpDeadline)
        throw new Error(`only ${warmed.size} of ${SUBSCRIBERS} subscribers received a warm-up event in ${WARM_UP_TIMEOUT_MS} ms`);
      await create(`${WARM_UP}${randomUUID()}`.slice(0, 50));
      await until(() => warmed.size === SUBSCRIBERS, 500);
    }
    // Let the last warm-up notifications land, so they are not counted as load.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const rssConnectedKb = residentKb(pid);

    const mutations: { reference: string; start: number; end: number; ok: boolean }[] = [];
    const serverCpuBefore = cpuSeconds(pid);
    const clientCpuBefore = process.cpuUsage();
    const loadStarted = performance.now();
    const deadline = loadStarted + DURATION_MS;
    let counter = 0;
    const worker = async () => {
      while (performance.now() < deadline) {
        const reference = `${MEASURED}${counter++}-${randomUUID()}`.slice(0, 50);
        const start = performance.now();
        const status = await create(reference);
        mutations.push({ reference, start, end: performance.now(), ok: status === 201 });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const loadMs = performance.now() - loadStarted;
    const succeeded = mutations.filter((m) => m.ok);
    const expected = succeeded.length * SUBSCRIBERS;
    await until(() => delivered >= expected || subscriptionErrors > 0, DRAIN_TIMEOUT_MS);
    const wallSeconds = (performance.now() - loadStarted) / 1000;
    const serverCpuAfter = cpuSeconds(pid);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const rssAfterLoadKb = residentKb(pid);
    if (firstError !== undefined) process.stderr.write(`fan-out: first subscription error: ${explain(firstError)}\n`);

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
      deliveryMs: (lastReceipt || performance.now()) - loadStarted,
      subscriptionErrors,
      fromResponse: percentiles(fromResponse),
      fromRequest: percentiles(fromRequest),
      serverCores:
        serverCpuBefore !== undefined && serverCpuAfter !== undefined ? (serverCpuAfter - serverCpuBefore) / wallSeconds : undefined,
      clientCores: (clientCpu.user + clientCpu.system) / 1e6 / wallSeconds,
      serverCpuSeconds: serverCpuBefore !== undefined && serverCpuAfter !== undefined ? serverCpuAfter - serverCpuBefore : undefined,
    };
  } finally {
    agent.destroy();
    // The instance first, so it closes the sockets itself (1012) and exits through its graceful shutdown, which
    // writes its CPU profile under BENCH_CPU_PROF; the clients, told not to retry, then go.
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    await Promise.all(clients.map((client) => Promise.resolve(client.dispose()).catch(() => undefined)));
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
      `each with its own socket; then REST creates${r.crossInstance ? ' through another instance on the same database' : ''} at concurrency ${r.concurrency} for ${(r.loadMs / 1000).toFixed(1)} s, each CREATED event ` +
      `fanned out to every subscriber. Latency is from the create's HTTP request start, and from its response (negative when the ` +
      `notification beats the response), to a subscriber's receipt, correlated by reference and event name, over every ` +
      `(event, subscriber) pair. Loopback only: the load generator, its ${r.subscribers} clients and the instance share the machine's ` +
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
