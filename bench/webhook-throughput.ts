/**
 * issue 23: do webhook deliveries keep pace with the payments? Payment flows (create, approve, capture: three events
 * each) are started open loop at `BENCH_WEBHOOK_EVENTS_PER_S` (200) payment events per second, alternating between
 * the two test sales units, each unit with two registrations for all events on fast receivers (so 400 deliveries per
 * second offered), and the first unit with a third registration on a receiver that answers only after
 * `BENCH_WEBHOOK_SLOW_MS` (2 s): it must not hold the fast ones back. Reports delivered per second against offered,
 * the fast receivers' backlog, the lag from the event's request to its receipt, and order violations per payment.
 * issue 33's row (`REALISTIC_RECEIVERS`) runs the same load with the fast receivers answering in 50-150 ms.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { percentiles, type Percentiles } from './percentiles.js';
import { paymentBody } from './payment-body.js';

const EVENTS_PER_S = Number(process.env.BENCH_WEBHOOK_EVENTS_PER_S ?? 200);
const LOAD_MS = Number(process.env.BENCH_WEBHOOK_LOAD_MS ?? 20_000);
const SLOW_MS = Number(process.env.BENCH_WEBHOOK_SLOW_MS ?? 2_000);
/** After the load stops: how long the fast receivers may take to receive the rest. */
const DRAIN_MS = 60_000;
/** Payment flows in flight at most: past it the server is the bottleneck, and the offered rate shows it. */
const MAX_FLOWS = 64;
const UNITS = ['123456', '654321'] as const;
const EVENT_ORDER = ['CREATED', 'AUTHORIZED', 'CAPTURED'];
/** Payments of the burst: their events are written straight into the outbox at once (3 per payment). */
const BURST_PAYMENTS = Number(process.env.BENCH_WEBHOOK_BURST_PAYMENTS ?? 1000);
const TIMELINE = process.env.BENCH_WEBHOOK_TIMELINE === '1';

/**
 * How the fast receivers answer: at once (issue 23's row), or, for issue 33's realistic row, after a delay drawn
 * uniformly from `answerMs` (a shop's PHP endpoint answers in 100-500 ms, the bench's realistic receivers in 50-150).
 */
export interface ReceiverProfile {
  title: string;
  answerMs?: readonly [min: number, max: number];
  /** The slow receiver beside them (a 2 s answer): it must hold back none of them. */
  slowReceiver: boolean;
  /** The events written straight into the outbox afterwards (needs the database's URL). */
  burst: boolean;
}

export const INSTANT_RECEIVERS: ReceiverProfile = { title: 'Webhook throughput (issue 23)', slowReceiver: true, burst: true };

/** Issue 33 point 12: receivers answering in 50-150 ms, at 200 events a second; the p99 lag's target is under 2 s. */
export const REALISTIC_RECEIVERS: ReceiverProfile = {
  title: 'Webhook deliveries to receivers answering in 50-150 ms (issue 33)',
  answerMs: [50, 150],
  slowReceiver: true,
  burst: false,
};

/** The realistic row's target: p99 of the lag from the event's request to its receipt. */
export const REALISTIC_P99_LAG_TARGET_MS = 2_000;

export interface WebhookThroughputResult {
  profile: ReceiverProfile;
  loadSeconds: number;
  eventsOffered: number;
  deliveriesOffered: number;
  fastDelivered: number;
  /** Fast deliveries received during the load window, per second. */
  deliveredPerSecond: number;
  backlogMax: number;
  backlogAtEnd: number;
  /** From the load's end until the fast receivers had everything (null: not within DRAIN_MS). */
  drainMs: number | null;
  /**
   * From the request that committed the event to the receipt, fast receivers: the commit lies between the request's
   * start (an upper bound of the lag) and its response (a lower bound; negative when the POST arrived first).
   */
  lagFromRequest: Percentiles;
  lagFromResponse: Percentiles;
  orderViolations: number;
  duplicates: number;
  slowReceived: number;
  slowOffered: number;
  failedRequests: number;
  /** The engine's ceiling, apart from the HTTP load: a burst of events committed at once, drained by the engine. */
  burst?: { deliveries: number; drainMs: number | null; perSecond: number; orderViolations: number; duplicates: number };
}

type Call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<Record<string, unknown>>;

interface Receipt {
  reference: string;
  name: string;
  at: number;
}

/** `databaseUrl`, when given, adds the burst: events written straight into the outbox of that database. */
export async function runWebhookThroughput(
  call: Call,
  databaseUrl?: string,
  profile: ReceiverProfile = INSTANT_RECEIVERS,
): Promise<WebhookThroughputResult> {
  const receipts = new Map<string, Receipt[]>();
  const server = await listen(profile, (path, receipt) => {
    const list = receipts.get(path) ?? [];
    list.push(receipt);
    receipts.set(path, list);
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headersOf = new Map<string, Record<string, string>>();
  const registrations: { id: string; headers: Record<string, string> }[] = [];
  const fastPaths: string[] = [];
  try {
    for (const msn of UNITS) {
      const token = await call('POST', '/accesstoken/get', {
        client_id: `test-client-${msn}`,
        client_secret: `test-secret-${msn}`,
        'Ocp-Apim-Subscription-Key': `test-key-${msn}`,
      });
      const headers = {
        Authorization: `Bearer ${String(token.access_token)}`,
        'Ocp-Apim-Subscription-Key': `test-key-${msn}`,
        'Merchant-Serial-Number': msn,
        'Content-Type': 'application/json',
      };
      headersOf.set(msn, headers);
      const paths = [`/fast/${msn}/a`, `/fast/${msn}/b`, ...(msn === UNITS[0] && profile.slowReceiver ? ['/slow'] : [])];
      for (const path of paths) {
        const events = EVENT_ORDER.map((name) => `epayments.payment.${name.toLowerCase()}.v1`);
        const registered = await call('POST', '/webhooks/v1/webhooks', headers, { url: base + path, events });
        registrations.push({ id: String(registered.id), headers });
        if (path.startsWith('/fast')) fastPaths.push(path);
      }
    }

    // When each event's request started, and how many events each unit has committed (counted at the response).
    const requestStart = new Map<string, number>();
    const responseEnd = new Map<string, number>();
    const committed = new Map<string, number>(UNITS.map((msn) => [msn, 0]));
    let failedRequests = 0;
    const step = async (msn: string, reference: string, name: string, method: string, path: string, body: unknown, idem: boolean) => {
      const headers = { ...headersOf.get(msn)!, ...(idem ? { 'Idempotency-Key': randomUUID() } : {}) };
      requestStart.set(`${reference}:${name}`, performance.now());
      await call(method, path, headers, body);
      responseEnd.set(`${reference}:${name}`, performance.now());
      committed.set(msn, committed.get(msn)! + 1);
    };
    const flow = async (i: number) => {
      const msn = UNITS[i % UNITS.length]!;
      const reference = `bench-thru-${i}-${randomUUID()}`.slice(0, 50);
      try {
        await step(msn, reference, 'CREATED', 'POST', '/epayment/v1/payments', paymentBody(reference, 1_000, 'Webhook throughput'), true);
        await step(
          msn,
          reference,
          'AUTHORIZED',
          'POST',
          `/epayment/v1/test/payments/${reference}/approve`,
          {
            customer: { phoneNumber: '4791234567' },
          },
          false,
        );
        await step(
          msn,
          reference,
          'CAPTURED',
          'POST',
          `/epayment/v1/payments/${reference}/capture`,
          {
            modificationAmount: { currency: 'NOK', value: 1_000 },
          },
          true,
        );
      } catch {
        failedRequests++;
      }
    };

    const fastReceived = () => fastPaths.reduce((sum, path) => sum + new Set((receipts.get(path) ?? []).map(key)).size, 0);
    const fastOffered = () => [...committed.values()].reduce((sum, n) => sum + 2 * n, 0);
    let backlogMax = 0;
    const sampler = setInterval(() => {
      backlogMax = Math.max(backlogMax, fastOffered() - fastReceived());
    }, 100);
    const timeline = TIMELINE && databaseUrl ? await startTimeline(databaseUrl, () => [fastOffered(), fastReceived()]) : undefined;

    const flowsPerMs = EVENTS_PER_S / EVENT_ORDER.length / 1000;
    const started = performance.now();
    const flows = new Set<Promise<void>>();
    let startedFlows = 0;
    while (performance.now() - started < LOAD_MS) {
      const due = Math.floor((performance.now() - started) * flowsPerMs);
      while (startedFlows < due && flows.size < MAX_FLOWS) {
        const running: Promise<void> = flow(startedFlows++).finally(() => flows.delete(running));
        flows.add(running);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(flows);
    const loadEnd = performance.now();
    const loadSeconds = (loadEnd - started) / 1000;
    const deliveredDuringLoad = fastReceived();
    const backlogAtEnd = fastOffered() - deliveredDuringLoad;
    let drainMs: number | null = null;
    while (performance.now() - loadEnd < DRAIN_MS) {
      if (fastReceived() >= fastOffered()) {
        drainMs = performance.now() - loadEnd;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    clearInterval(sampler);
    await timeline?.stop();

    const lags: number[] = [];
    const lagsFromResponse: number[] = [];
    let orderViolations = 0;
    let duplicates = 0;
    for (const path of fastPaths) {
      const seen = new Set<string>();
      const lastIndex = new Map<string, number>();
      for (const receipt of receipts.get(path) ?? []) {
        if (seen.has(key(receipt))) {
          duplicates++;
          continue;
        }
        seen.add(key(receipt));
        const start = requestStart.get(key(receipt));
        if (start !== undefined) lags.push(receipt.at - start);
        const end = responseEnd.get(key(receipt));
        if (end !== undefined) lagsFromResponse.push(receipt.at - end);
        const index = EVENT_ORDER.indexOf(receipt.name);
        if (index < (lastIndex.get(receipt.reference) ?? -1)) orderViolations++;
        lastIndex.set(receipt.reference, Math.max(index, lastIndex.get(receipt.reference) ?? -1));
      }
    }
    const eventsOffered = [...committed.values()].reduce((a, b) => a + b, 0);
    const burst = databaseUrl && profile.burst ? await runBurst(databaseUrl, receipts, fastPaths) : undefined;
    return {
      profile,
      burst,
      loadSeconds,
      eventsOffered,
      deliveriesOffered: fastOffered(),
      fastDelivered: fastReceived(),
      deliveredPerSecond: deliveredDuringLoad / loadSeconds,
      backlogMax,
      backlogAtEnd,
      drainMs,
      lagFromRequest: percentiles(lags),
      lagFromResponse: percentiles(lagsFromResponse),
      orderViolations,
      duplicates,
      slowReceived: new Set((receipts.get('/slow') ?? []).filter((r) => !r.reference.startsWith('burst-')).map(key)).size,
      slowOffered: committed.get(UNITS[0])!,
      failedRequests,
    };
  } finally {
    for (const registration of registrations) {
      await call('DELETE', `/webhooks/v1/webhooks/${registration.id}`, registration.headers).catch(() => undefined);
    }
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const key = (receipt: { reference: string; name: string }) => `${receipt.reference}:${receipt.name}`;

/**
 * `BENCH_WEBHOOK_TIMELINE=1`: every 500 ms, to stderr, where the fast receivers' backlog sits: events not yet fanned
 * out (outbox), deliveries due but not claimed, deliveries leased (in flight), and the load average; to tell the
 * dispatcher, the claim, the POSTs and the machine apart when the backlog grows.
 */
async function startTimeline(databaseUrl: string, counts: () => [offered: number, received: number]): Promise<{ stop(): Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = performance.now();
  let stopped = false;
  const sample = async () => {
    while (!stopped) {
      const [offered, received] = counts();
      const { rows } = await client.query<{ undispatched: string; due: string; leased: string }>(
        `select (select count(*) from domain_event where dispatched_at is null) as undispatched,
                count(*) filter (where status = 'pending' and (lease_until is null or lease_until < now())) as due,
                count(*) filter (where status = 'pending' and lease_until >= now()) as leased
         from delivery where kind = 'webhook'`,
      );
      const row = rows[0]!;
      const load = (await readFile('/proc/loadavg', 'utf8')).split(' ')[0];
      process.stderr.write(
        `timeline ${((performance.now() - started) / 1000).toFixed(1)} s: backlog ${offered - received}, ` +
          `outbox ${row.undispatched}, due ${row.due}, leased ${row.leased}, load ${load}\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  const sampling = sample();
  return {
    stop: async () => {
      stopped = true;
      await sampling;
      await client.end();
    },
  };
}

/**
 * Writes BURST_PAYMENTS payments' three events each into the outbox in one transaction (as if that many payments had
 * just been made), then waits until the fast receivers have all of them: deliveries per second at the engine's pace,
 * whatever the HTTP face can take on this machine.
 */
async function runBurst(
  databaseUrl: string,
  receipts: Map<string, Receipt[]>,
  fastPaths: string[],
): Promise<NonNullable<WebhookThroughputResult['burst']>> {
  const prefix = `burst-${randomUUID().slice(0, 8)}-`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at)
       select 'payment', md5($1 || p), case when p % 2 = 0 then $2 else $3 end,
         'epayments.payment.' || lower(n.name) || '.v1',
         jsonb_build_object('reference', $1 || p, 'pspReference', 'burst', 'name', n.name,
           'amount', jsonb_build_object('currency', 'NOK', 'value', 1000), 'idempotencyKey', null, 'success', true),
         now()
       from generate_series(1, $4::int) p, unnest(array['CREATED', 'AUTHORIZED', 'CAPTURED']) with ordinality n(name, ord)
       order by p, n.ord`,
      [prefix, UNITS[0], UNITS[1], BURST_PAYMENTS],
    );
  } finally {
    await client.end();
  }
  const started = performance.now();
  // Each payment belongs to one of the units, whose two fast registrations get every event of it.
  const deliveries = BURST_PAYMENTS * EVENT_ORDER.length * (fastPaths.length / UNITS.length);
  const received = () =>
    fastPaths.reduce(
      (sum, path) => sum + new Set((receipts.get(path) ?? []).filter((r) => r.reference.startsWith(prefix)).map(key)).size,
      0,
    );
  let drainMs: number | null = null;
  while (performance.now() - started < DRAIN_MS * 2) {
    if (received() >= deliveries) {
      drainMs = performance.now() - started;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  let orderViolations = 0;
  let duplicates = 0;
  for (const path of fastPaths) {
    const lastIndex = new Map<string, number>();
    const seen = new Set<string>();
    for (const receipt of (receipts.get(path) ?? []).filter((r) => r.reference.startsWith(prefix))) {
      // A duplicate (sent again after its lease ran out) is counted as such, not as a violation.
      if (seen.has(key(receipt))) {
        duplicates++;
        continue;
      }
      seen.add(key(receipt));
      const index = EVENT_ORDER.indexOf(receipt.name);
      if (index < (lastIndex.get(receipt.reference) ?? -1)) orderViolations++;
      lastIndex.set(receipt.reference, Math.max(index, lastIndex.get(receipt.reference) ?? -1));
    }
  }
  const elapsed = drainMs ?? performance.now() - started;
  return { deliveries, drainMs, perSecond: (received() / elapsed) * 1000, orderViolations, duplicates };
}

export function renderWebhookThroughput(r: WebhookThroughputResult): string {
  const offeredPerS = r.eventsOffered / r.loadSeconds;
  const ms = (p: Percentiles) => `p50 ${p.p50.toFixed(0)} ms, p99 ${p.p99.toFixed(0)} ms, max ${p.max.toFixed(0)} ms`;
  const answer = r.profile.answerMs ? `, answering in ${r.profile.answerMs[0]}-${r.profile.answerMs[1]} ms` : '';
  // The commit lies between the event's request start and its response: the p99 lag lies between the two bounds.
  const [upper, lower] = [r.lagFromRequest.p99, r.lagFromResponse.p99];
  const lagVerdict =
    upper < REALISTIC_P99_LAG_TARGET_MS ? 'met' : lower < REALISTIC_P99_LAG_TARGET_MS ? 'met by the lower bound only' : '**missed**';
  const p99Target = r.profile.answerMs
    ? [
        `| p99 commit-to-receipt lag (between the bounds), target under ${REALISTIC_P99_LAG_TARGET_MS / 1000} s | ` +
          `${(lower / 1000).toFixed(2)}-${(upper / 1000).toFixed(2)} s: ${lagVerdict} |`,
      ]
    : [];
  return [
    `### ${r.profile.title}`,
    '',
    '| figure | measured |',
    '|---|---|',
    `| payment events committed (two sales units, ${r.loadSeconds.toFixed(1)} s) | ${r.eventsOffered} (${offeredPerS.toFixed(0)}/s; ${r.failedRequests} failed flows) |`,
    `| deliveries offered to the four fast registrations${answer} | ${r.deliveriesOffered} (${(r.deliveriesOffered / r.loadSeconds).toFixed(0)}/s) |`,
    `| delivered per second during the load (fast) | ${r.deliveredPerSecond.toFixed(0)}/s |`,
    `| backlog (fast): max, at the load's end | ${r.backlogMax}, ${r.backlogAtEnd} |`,
    `| drained after the load | ${r.drainMs === null ? `**not within ${DRAIN_MS / 1000} s** (${r.fastDelivered} of ${r.deliveriesOffered})` : `${r.drainMs.toFixed(0)} ms`} |`,
    `| commit-to-receipt lag, upper bound: from the event's request start (fast) | ${ms(r.lagFromRequest)} |`,
    `| commit-to-receipt lag, lower bound: from the event's response (fast) | ${ms(r.lagFromResponse)} |`,
    `| order violations (one payment's events out of order at a receiver), duplicates | ${r.orderViolations}, ${r.duplicates} |`,
    ...p99Target,
    ...(r.profile.slowReceiver ? [`| slow receiver (answers after ${SLOW_MS} ms) | ${r.slowReceived} of ${r.slowOffered} received |`] : []),
    ...(r.burst
      ? [
          `| burst: ${BURST_PAYMENTS} payments' events written into the outbox at once, ${r.burst.deliveries} fast deliveries | ` +
            `${r.burst.drainMs === null ? '**not drained**' : `drained in ${(r.burst.drainMs / 1000).toFixed(1)} s`}, ` +
            `${r.burst.perSecond.toFixed(0)} deliveries/s, ${r.burst.orderViolations} order violations, ${r.burst.duplicates} duplicates |`,
        ]
      : []),
  ].join('\n');
}

function listen(profile: ReceiverProfile, onEvent: (path: string, receipt: Receipt) => void): Promise<Server> {
  const [min, max] = profile.answerMs ?? [0, 0];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const path = req.url ?? '/';
      const answer = () => {
        const event = JSON.parse(Buffer.concat(chunks).toString()) as { reference: string; name: string };
        onEvent(path, { reference: event.reference, name: event.name, at });
        if (!res.destroyed) res.writeHead(200).end();
      };
      if (path === '/slow') setTimeout(answer, SLOW_MS);
      else if (max > 0) setTimeout(answer, min + Math.random() * (max - min));
      else answer();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
