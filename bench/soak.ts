/**
 * `npm run soak` (issue 36): the database at ten million payments, then the bench's rows on it beside the same rows on
 * a fresh database. Loopback only, bounded in time, not part of CI. See bench/README.md, Soak.
 *
 * Stages (`SOAK_STAGES`, comma-separated, default all, in this order):
 * - `fill`: brings `SOAK_DATABASE` (created and migrated if missing; never the shared `test` database) to
 *   `SOAK_PAYMENTS` payments with bench/soak-fill.ts, a chunk per transaction, until done or `SOAK_FILL_BUDGET_MS` is
 *   spent; a later run goes on where it stopped. Its own database backend is reniced (+10), as the machine is shared.
 * - `prune`: table sizes, then `paygraph prune` (the operator command, every kind), then the sizes again.
 * - `buffers`: EXPLAIN (ANALYZE, BUFFERS) of the service's own statements (a payment's log, a page, searches, the
 *   outbox read) on the filled database.
 * - `bench`: bench/run.ts's create, capture, get, page and search rows and its webhook rows, on the filled database
 *   and on a fresh one, one after the other (`SOAK_BENCH_GROUPS`: `throughput`, `webhook-latency`, `webhook-throughput`).
 * Every figure is printed with the machine's load average beside it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { databaseOn } from './database-url.js';
import { readBuffers, type ReadBuffers } from './read-buffers.js';
import { chunkStatements, setupStatements, SOAK_WEBHOOKS, soakReference, type FillPlan } from './soak-fill.js';

const SERVER_URL = process.env.SOAK_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = process.env.SOAK_DATABASE ?? 'paygraph_soak';
const TARGET = Number(process.env.SOAK_PAYMENTS ?? 10_000_000);
const CHUNK = Number(process.env.SOAK_CHUNK ?? 100_000);
const FILL_BUDGET_MS = Number(process.env.SOAK_FILL_BUDGET_MS ?? 45 * 60_000);
/** The time the payments spread over: past the deliveries' 37 days, so a prune has days to drop. */
const SPAN_DAYS = Number(process.env.SOAK_SPAN_DAYS ?? 45);
const STAGES = (process.env.SOAK_STAGES ?? 'fill,prune,buffers,bench').split(',').map((s) => s.trim());
const DAY_MS = 24 * 60 * 60 * 1000;
const root = join(fileURLToPath(new URL('.', import.meta.url)), '../..');

if (DATABASE === 'test') throw new Error('SOAK_DATABASE must not be the shared test database');

const databaseUrl = (name: string) => databaseOn(SERVER_URL, name);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const log = (line: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)} load ${load()}] ${line}\n`);

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** The operator command line on the soak database (its migrations run first), as an operator runs it. */
function paygraphCli(args: string[]): string {
  return execFileSync(process.execPath, ['--experimental-async-context-frame', join(root, 'dist/src/cli.js'), ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl(DATABASE), NODE_ENV: 'production' },
    encoding: 'utf8',
  });
}

async function ensureDatabase(database = DATABASE): Promise<void> {
  const admin = await connect(SERVER_URL);
  const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [database]);
  if (!rowCount) await admin.query(`create database ${database}`);
  await admin.end();
  await serveOnce(database);
}

/** Starts the service on the soak database until it listens: its migrations and the test environment's seed run. */
function serveOnce(database = DATABASE): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--experimental-async-context-frame', join(root, 'dist/src/main.js')], {
      // No jobs: the prune is the operator's command here, measured on its own.
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl(database),
        PORT: '0',
        METRICS_PORT: '0',
        NODE_ENV: 'production',
        PAYGRAPH_RUN_JOBS: 'false',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"listening"')) child.kill('SIGTERM');
    });
    child.on('exit', (code, signal) => (signal === 'SIGTERM' || code === 0 ? resolve() : reject(new Error(`main.js exited with ${code}`))));
  });
}

interface FillState extends FillPlan {
  target: number;
  filled: number;
}

/** The fill's own bookkeeping (no table of the service's): its time plan, fixed at the first run, and how far it went. */
async function fillState(db: pg.Client): Promise<FillState> {
  await db.query(`create table if not exists soak_fill (
    id smallint primary key check (id = 1), start timestamptz not null, step_ms double precision not null,
    idempotency_from timestamptz not null, target bigint not null, filled bigint not null)`);
  const now = Date.now();
  const start = new Date(now - SPAN_DAYS * DAY_MS);
  // Idempotency records only for the last 8 days: a day more than the 7-day window, which the prune then removes.
  await db.query(`insert into soak_fill values (1, $1, $2, $3, $4, 0) on conflict (id) do nothing`, [
    start,
    (SPAN_DAYS * DAY_MS) / TARGET,
    new Date(now - 8 * DAY_MS),
    TARGET,
  ]);
  const { rows } = await db.query<{ start: Date; step_ms: number; idempotency_from: Date; target: string; filled: string }>(
    'select * from soak_fill',
  );
  const row = rows[0]!;
  return {
    start: row.start,
    stepMs: row.step_ms,
    idempotencyFrom: row.idempotency_from,
    target: Number(row.target),
    filled: Number(row.filled),
  };
}

async function fill(): Promise<void> {
  await ensureDatabase();
  const db = await connect(databaseUrl(DATABASE));
  const { rows } = await db.query<{ pid: number }>('select pg_backend_pid() as pid');
  // The backend does the fill's work, not this process: it is the one to yield the shared cores.
  execFileSync('renice', ['-n', '10', '-p', String(rows[0]!.pid)]);
  const state = await fillState(db);
  for (const sql of setupStatements(state, state.target, 'http://127.0.0.1:9/soak-receiver')) await db.query(sql);
  const started = performance.now();
  log(`fill: ${state.filled} of ${state.target} payments there; chunks of ${CHUNK}, budget ${FILL_BUDGET_MS / 60_000} min`);
  let filled = state.filled;
  while (filled < state.target && performance.now() - started < FILL_BUDGET_MS) {
    const from = filled + 1;
    const to = Math.min(state.target, filled + CHUNK);
    const chunkStarted = performance.now();
    await db.query('begin');
    // A crash loses at most the last commits, and the chunk is redone from soak_fill: no need to wait for the WAL.
    await db.query('set local synchronous_commit = off');
    const times: string[] = [];
    for (const sql of chunkStatements(state, from, to)) {
      const at = performance.now();
      await db.query(sql);
      times.push(((performance.now() - at) / 1000).toFixed(1));
    }
    await db.query('update soak_fill set filled = $1', [to]);
    await db.query('commit');
    filled = to;
    const seconds = (performance.now() - chunkStarted) / 1000;
    log(
      `fill: ${filled} payments (${soakReference(to)}), chunk ${seconds.toFixed(1)} s, ${((to - from + 1) / seconds).toFixed(0)} payments/s (statements ${times.join(' ')} s)`,
    );
  }
  // Nothing else wrote while the fill ran: every transaction before this one has ended, and its events have positions.
  await db.query('update event_sequencer set horizon = greatest(horizon, pg_current_xact_id())');
  log('fill: analyze');
  await db.query('analyze');
  log(`fill: ${filled} of ${state.target} payments after ${((performance.now() - started) / 60_000).toFixed(1)} min`);
  await db.end();
}

const TABLES = ['payment', 'domain_event', 'event_position', 'delivery', 'delivery_attempt', 'idempotency_record'];

/** Each table's rows (counted) and size on disk with its indexes and TOAST (a partitioned table: its partitions'). */
async function tableSizes(db: pg.Client): Promise<Map<string, { rows: number; bytes: number; partitions?: number }>> {
  const sizes = new Map<string, { rows: number; bytes: number; partitions?: number }>();
  for (const table of TABLES) {
    const { rows } = await db.query<{ rows: string; bytes: string; partitions: string }>(
      `select (select count(*) from ${table})::text as rows,
         (pg_total_relation_size('${table}') + coalesce((select sum(pg_total_relation_size(inhrelid)) from pg_inherits
           where inhparent = '${table}'::regclass), 0))::text as bytes,
         (select count(*) from pg_inherits where inhparent = '${table}'::regclass)::text as partitions`,
    );
    const row = rows[0]!;
    sizes.set(table, {
      rows: Number(row.rows),
      bytes: Number(row.bytes),
      ...(table === 'delivery_attempt' ? { partitions: Number(row.partitions) } : {}),
    });
  }
  return sizes;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const report: string[] = [];
const say = (markdown: string) => {
  report.push(markdown);
  process.stdout.write(`${markdown}\n\n`);
};

async function prune(): Promise<void> {
  let started = performance.now();
  // The service's migrations on the filled database (those a new release brings run here, on millions of rows).
  await serveOnce();
  log(`prune: migrations and start on the filled database ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const db = await connect(databaseUrl(DATABASE));
  const before = await tableSizes(db);
  const dryRun = paygraphCli(['prune', '--dry-run']);
  log(`prune --dry-run:\n${dryRun}`);
  const loadBefore = load();
  started = performance.now();
  const output = paygraphCli(['prune']);
  const seconds = (performance.now() - started) / 1000;
  log(`prune (${seconds.toFixed(1)} s):\n${output}`);
  const after = await tableSizes(db);
  await db.end();
  say(
    [
      `### Table sizes before and after \`paygraph prune\``,
      '',
      `\`paygraph prune\` took ${seconds.toFixed(1)} s (load average ${loadBefore} before, ${load()} after). What it said:`,
      '',
      '```',
      output.trim(),
      '```',
      '',
      '| table | rows before | MB before | rows after | MB after |',
      '|---|---:|---:|---:|---:|',
      ...TABLES.map((table) => {
        const b = before.get(table)!;
        const a = after.get(table)!;
        const parts = (x: { partitions?: number }) => (x.partitions === undefined ? '' : ` (${x.partitions} days)`);
        return `| ${table} | ${b.rows} | ${mb(b.bytes)}${parts(b)} | ${a.rows} | ${mb(a.bytes)}${parts(a)} |`;
      }),
    ].join('\n'),
  );
}

/** The read buffers on a database of `payments` soak payments (the filled one, or a small one made for the comparison). */
async function buffersOf(database: string): Promise<ReadBuffers & { payments: number }> {
  const { modules } = await import('../src/modules.js');
  const { forkEm, openDatabase } = await import('../src/platform/db/orm.js');
  const orm = await openDatabase({
    databaseUrl: databaseUrl(database),
    dataDir: 'memory://', // unused: PostgreSQL
    entities: modules.flatMap((m) => m.entities ?? []),
    migrations: modules.flatMap((m) => m.migrations ?? []),
  });
  try {
    const em = forkEm(orm);
    const [{ id }] = await em.execute<{ id: string }[]>(`select id from payment where reference = ?`, [soakReference(1)]);
    const [{ n }] = await em.execute<{ n: string }[]>(`select count(*)::text as n from payment`);
    return { ...(await readBuffers(em, '123456', id, soakReference(1), new Date())), payments: Number(n) };
  } finally {
    await orm.close();
  }
}

async function buffers(): Promise<void> {
  // The comparison: 1,000 soak payments on a database of their own, by the same statements.
  const small = `${DATABASE}_small`;
  await ensureDatabase(small);
  const db = await connect(databaseUrl(small));
  const plan: FillPlan = { start: new Date(Date.now() - DAY_MS), stepMs: 60_000, idempotencyFrom: new Date(Date.now() - DAY_MS) };
  for (const sql of setupStatements(plan, 1000, 'http://127.0.0.1:9/soak-receiver')) await db.query(sql);
  await db.query('begin');
  for (const sql of chunkStatements(plan, 1, 1000)) await db.query(sql);
  await db.query('commit');
  await db.query('update event_sequencer set horizon = greatest(horizon, pg_current_xact_id())');
  await db.query('analyze');
  await db.end();
  const few = await buffersOf(small);
  const admin = await connect(SERVER_URL);
  await admin.query(`drop database ${small} with (force)`);
  await admin.end();
  const many = await buffersOf(DATABASE);
  const rows: [keyof ReadBuffers, string][] = [
    ['paymentLog', "a payment's log (its oldest payment's first 50 events)"],
    ['page', 'a page of 50 payments, newest first'],
    ['pageEvents', "the page's events (first 50 of each, one statement)"],
    ['searchByReferencePrefix', 'search: a reference prefix naming one payment'],
    ['searchByStateAndAmount', 'search: a state and an amount'],
    ['outboxRead', 'outbox read with nothing fresh (sequencing + stream)'],
  ];
  say(
    [
      `### Buffers read (EXPLAIN (ANALYZE, BUFFERS), shared hit + read), load average ${load()}`,
      '',
      `| read | ${few.payments} payments | ${many.payments} payments | ratio |`,
      '|---|---:|---:|---:|',
      ...rows.map(([key, label]) => `| ${label} | ${few[key]} | ${many[key]} | ${(many[key] / few[key]).toFixed(2)} |`),
    ].join('\n'),
  );
}

/** CPU seconds so far of a process (user + system), from /proc; 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The pids of a process's descendants whose command line includes `needle`. */
function descendants(root: number, needle: string): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Gone meanwhile.
    }
  }
  const isBelow = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  return [...parents.keys()].filter((pid) => {
    if (!isBelow(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
    } catch {
      return false;
    }
  });
}

/**
 * Runs bench/run.ts on `database` with `env`, sampling every 500 ms the CPU of the Paygraph instances it starts and of
 * the database's backends (a process's last sample counts when it is gone). Returns its output and the CPU seconds.
 */
async function benchRun(
  database: string,
  env: Record<string, string>,
): Promise<{ output: string; instanceCpu: number; databaseCpu: number; seconds: number; load: string }> {
  const admin = await connect(SERVER_URL);
  const started = performance.now();
  const loadAtStart = load();
  const child = spawn(process.execPath, ['--experimental-async-context-frame', join(root, 'dist/bench/run.js')], {
    env: { ...process.env, ...env, BENCH_DATABASE: database, DATABASE_URL: databaseUrl('postgres') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const instances = new Map<number, { first: number; last: number }>();
  const backends = new Map<number, { first: number; last: number }>();
  const note = (seen: Map<number, { first: number; last: number }>, pid: number) => {
    const now = cpuSeconds(pid);
    const entry = seen.get(pid);
    if (entry) entry.last = Math.max(entry.last, now);
    else seen.set(pid, { first: now, last: now });
  };
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    for (const pid of descendants(child.pid!, 'dist/src/main.js')) note(instances, pid);
    const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]);
    for (const { pid } of rows) note(backends, pid);
    await new Promise((r) => setTimeout(r, 500));
  }
  await admin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`bench/run.ts on ${database} exited with ${code}`);
  const spent = (seen: Map<number, { first: number; last: number }>) => [...seen.values()].reduce((sum, e) => sum + e.last - e.first, 0);
  return {
    output,
    instanceCpu: spent(instances),
    databaseCpu: spent(backends),
    seconds: (performance.now() - started) / 1000,
    load: `${loadAtStart} → ${load()}`,
  };
}

async function bench(): Promise<void> {
  const soakDb = await connect(databaseUrl(DATABASE));
  // The soak's registrations keep their history but take no new events: both databases then deliver the bench's own.
  await soakDb.query(`update webhook set events = '[]' where id = any($1::uuid[])`, [SOAK_WEBHOOKS.map((w) => w.id)]);
  const [{ payments }] = (await soakDb.query<{ payments: string }>('select count(*)::text as payments from payment')).rows;
  await soakDb.end();
  const fresh = `${DATABASE}_fresh`;
  const groups: [string, Record<string, string>][] = [
    ['throughput', { BENCH_ONLY: 'throughput', BENCH_ROWS: 'create,capture,get,page,search' }],
    ['webhook latency', { BENCH_ONLY: 'webhook-latency' }],
    ['webhook throughput', { BENCH_ONLY: 'webhook-throughput' }],
  ];
  const only = process.env.SOAK_BENCH_GROUPS?.split(',').map((g) => g.trim());
  for (const [name, env] of groups.filter(([name]) => !only || only.includes(name.split(' ').join('-')))) {
    // Fresh first, then the filled one, group by group, so the two see the machine minutes apart at most.
    for (const [label, database] of [
      ['fresh database', fresh],
      [`${payments} payments`, DATABASE],
    ] as const) {
      log(`bench: ${name} on ${label}`);
      const run = await benchRun(database, env);
      say(
        [
          `#### ${name}: ${label}`,
          '',
          `Load average ${run.load}; ${run.seconds.toFixed(0)} s; CPU of the Paygraph instances ${run.instanceCpu.toFixed(1)} s, ` +
            `of the database's backends ${run.databaseCpu.toFixed(1)} s.`,
          '',
          run.output.trim(),
        ].join('\n'),
      );
    }
  }
}

async function main(): Promise<void> {
  if (STAGES.includes('fill')) await fill();
  if (STAGES.includes('prune')) await prune();
  if (STAGES.includes('buffers')) await buffers();
  if (STAGES.includes('bench')) await bench();
  if (process.env.SOAK_REPORT) writeFileSync(process.env.SOAK_REPORT, `${report.join('\n\n')}\n`);
}

await main();
