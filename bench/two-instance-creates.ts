/**
 * issue 23: creates at concurrency 64 from two instances against one PostgreSQL, with the time the database's
 * backends spent waiting on locks meanwhile. Every create writes an outbox event; while the insert trigger sent a
 * NOTIFY, each commit took PostgreSQL's one notification-queue lock (a heavyweight `object` lock on database 0, then
 * the `NotifyQueue` LWLock), so every writer of every instance queued there. `BENCH_ONLY=two-instance-creates`
 * runs this row alone; `BENCH_APP_ROOT` starts the instances from another checkout's build (the "before" figures).
 * issue 36: the same row from three instances (`BENCH_ONLY=three-instance-creates`), each given the same concurrency
 * as in the two-instance row, so the rows show what a third instance adds and where the waits grow.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { runLoad, type LoadResult } from './load.js';
import { paymentBody } from './payment-body.js';

/** Creates in flight per instance: half the two-instance row's concurrency. */
const PER_INSTANCE = Number(process.env.BENCH_TWO_INSTANCE_CONCURRENCY ?? 64) / 2;
/** How often pg_stat_activity is sampled during the measured window. */
const SAMPLE_MS = 5;

export interface InstanceCreatesResult {
  concurrency: number;
  durationMs: number;
  perInstance: LoadResult[];
  /** Samples of pg_stat_activity taken, and per wait event the waiting backends summed over them. */
  samples: number;
  waits: Map<string, number>;
  /** Active backends summed over the samples (waiting or not): what the waits are a share of. */
  activeSum: number;
}

const COUNT_WORDS: Record<number, string> = { 2: 'two', 3: 'three' };

interface Instance {
  baseUrl: string;
}

/**
 * `instances` are Paygraph instances on the database `databaseUrl`; `headers` a merchant's credentials (the token is
 * valid on each). Each gets the same concurrency, for `durationMs` after a warm-up, while another connection samples
 * which of the database's backends wait on a lock.
 */
export async function runInstanceCreates(
  instances: readonly Instance[],
  databaseUrl: string,
  headers: Record<string, string>,
  options: { durationMs: number; warmUpMs: number },
): Promise<InstanceCreatesResult> {
  const create = () => ({
    method: 'POST',
    path: '/epayment/v1/payments',
    headers: { ...headers, 'Idempotency-Key': randomUUID() },
    body: JSON.stringify(paymentBody(`bench-${instances.length}i-${randomUUID()}`.slice(0, 50))),
  });
  const load = (durationMs: number) =>
    Promise.all(
      instances.map((instance) => runLoad(instance.baseUrl, { concurrency: PER_INSTANCE, durationMs, expectStatus: 201, next: create })),
    );
  await load(options.warmUpMs);

  const sampler = new pg.Client({ connectionString: databaseUrl, application_name: 'paygraph-bench-lock-sampler' });
  await sampler.connect();
  const database = new URL(databaseUrl).pathname.slice(1);
  const waits = new Map<string, number>();
  let samples = 0;
  let activeSum = 0;
  let sampling = true;
  const sample = async () => {
    while (sampling) {
      const started = performance.now();
      const { rows } = await sampler.query<{ wait: string | null; n: number }>(
        `select case when wait_event_type in ('Lock', 'LWLock') then wait_event_type || ':' || wait_event end as wait, count(*)::int as n
         from pg_stat_activity
         where datname = $1 and state = 'active' and pid <> pg_backend_pid() and backend_type = 'client backend'
         group by 1`,
        [database],
      );
      samples++;
      for (const { wait, n } of rows) {
        activeSum += n;
        if (wait) waits.set(wait, (waits.get(wait) ?? 0) + n);
      }
      const rest = SAMPLE_MS - (performance.now() - started);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  };
  const sampling$ = sample();
  const started = performance.now();
  const perInstance = await load(options.durationMs);
  const durationMs = performance.now() - started;
  sampling = false;
  await sampling$;
  await sampler.end();
  return { concurrency: PER_INSTANCE * instances.length, durationMs, perInstance, samples, waits, activeSum };
}

export function renderInstanceCreates(r: InstanceCreatesResult, label: string): string {
  const creates = r.perInstance.reduce((sum, result) => sum + result.perSecond, 0);
  const failures = r.perInstance.reduce((sum, result) => sum + result.failures, 0);
  const waiting = [...r.waits.values()].reduce((sum, n) => sum + n, 0);
  // Each sample stands for the backends' state over the sampling interval: the average number of waiting
  // backends is the backend-seconds spent waiting per second of load.
  const avg = (n: number) => n / Math.max(r.samples, 1);
  const perCreateMs = (n: number) => (creates > 0 ? (avg(n) * 1000) / creates : 0);
  const top = [...r.waits.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6);
  const lines = [
    `#### ${label}`,
    '',
    `REST creates at concurrency ${r.concurrency} (${r.concurrency / r.perInstance.length} per instance) for ${(r.durationMs / 1000).toFixed(1)} s ` +
      `from ${COUNT_WORDS[r.perInstance.length] ?? r.perInstance.length} ` +
      `instances on one PostgreSQL; pg_stat_activity sampled ${r.samples} times (every ${SAMPLE_MS} ms) for the database's active backends ` +
      `waiting on a heavyweight lock (Lock) or a lightweight lock (LWLock).`,
    '',
    '| figure | value |',
    '|---|---:|',
    `| creates per second (${r.perInstance.length === 2 ? 'both' : `all ${COUNT_WORDS[r.perInstance.length] ?? r.perInstance.length}`} instances) | ${creates.toFixed(0)} (${failures} failed) |`,
    ...r.perInstance.map((result, i) => `| instance ${i + 1}: p50 / p99 ms | ${result.p50Ms.toFixed(1)} / ${result.p99Ms.toFixed(1)} |`),
    `| active backends, average | ${avg(r.activeSum).toFixed(1)} |`,
    `| backends waiting on locks, average (backend-seconds per second) | ${avg(waiting).toFixed(2)} |`,
    `| lock wait per create | ${perCreateMs(waiting).toFixed(2)} ms |`,
    '',
    '| wait event | backends waiting, average | per create ms |',
    '|---|---:|---:|',
    ...(top.length > 0
      ? top.map(([wait, n]) => `| ${wait} | ${avg(n).toFixed(2)} | ${perCreateMs(n).toFixed(2)} |`)
      : ['| none sampled | 0 | 0 |']),
  ];
  return lines.join('\n');
}
