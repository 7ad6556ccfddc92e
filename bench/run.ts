/**
 * `npm run bench`: Paygraph's REST routes and graph against a bare node:http + pg baseline doing the same SQL,
 * all on one PostgreSQL database created for the run, with fixed concurrency and bounded time.
 * Prints markdown tables and keeps them in bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { format, resolveConfig } from 'prettier';
import { renderFanOut, runFanOut } from './fan-out.js';
import { renderHostileDocuments, runHostileDocuments } from './fragment-fan-out.js';
import { renderLedgerRead, runLedgerRead } from './ledger-read.js';
import { renderWebhookLatency, runWebhookLatency } from './webhook-latency.js';
import { REALISTIC_RECEIVERS, renderWebhookThroughput, runWebhookThroughput } from './webhook-throughput.js';
import { graphqlSucceeded, runLoad, type LoadRequest, type LoadResult } from './load.js';
import { CAPTURE, CREATE, GET, ORDERS_PAGE, PAGE, SEARCH } from './graph-documents.js';
import { paymentBody } from './payment-body.js';
import { renderQrImages, runQrImages } from './qr-images.js';
import { renderInstanceCreates, runInstanceCreates } from './two-instance-creates.js';

const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 4000);
const WARM_UP_MS = Number(process.env.BENCH_WARM_UP_MS ?? 1000);
const root = join(fileURLToPath(new URL('.', import.meta.url)), '../..');
/** Where Paygraph's build is taken from: this checkout, or another one's (a "before" figure on main). */
const appRoot = process.env.BENCH_APP_ROOT ?? root;
/**
 * One row alone: `fragment-fan-out`, `two-instance-creates`, `three-instance-creates`, `fan-out`,
 * `fan-out-cross-instance`, `webhook-throughput` or `webhook-realistic`.
 */
const only = process.env.BENCH_ONLY;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  await client.query(sql);
  await client.end();
}

function start(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; baseUrl: string }> {
  return new Promise((resolve, reject) => {
    // BENCH_CPU_PROF=<dir>: each Paygraph instance writes a V8 CPU profile there when it exits.
    const profile =
      process.env.BENCH_CPU_PROF && script.startsWith('dist/src/') ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const scriptRoot = script.startsWith('dist/src/') ? appRoot : root;
    const child = spawn(process.execPath, ['--experimental-async-context-frame', ...profile, join(scriptRoot, script)], {
      // Several instances run at once: each takes any free metrics port.
      // NODE_ENV as the Dockerfile sets it: graphql-js and Apollo run their development checks otherwise (graphql's
      // multi-realm `instanceOf` on every type test), which production never pays.
      env: { ...process.env, ...env, NODE_ENV: 'production', PORT: '0', METRICS_PORT: '0', PAYGRAPH_LOG_REQUESTS: 'false' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"port":(\d+)/.exec(buffered);
      if (match) resolve({ child, baseUrl: `http://127.0.0.1:${match[1]}` });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

async function json(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Record<string, string>> {
  const res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as Record<string, string>;
}

/**
 * `BENCH_DATABASE=<name>` runs on that database, kept afterwards if it existed (the soak's, filled to ten million
 * payments: bench/soak.ts), created and dropped otherwise; by default a new database of the run's own.
 */
async function benchDatabase(): Promise<{ database: string; created: boolean }> {
  const database = process.env.BENCH_DATABASE ?? `paygraph_bench_${Date.now()}`;
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
  await client.end();
  if (rowCount) return { database, created: false };
  await admin(`create database ${database}`);
  return { database, created: true };
}

async function main(): Promise<void> {
  const { database, created } = await benchDatabase();
  const url = new URL(SERVER_URL);
  url.pathname = `/${database}`;
  const env = { DATABASE_URL: url.toString() };
  const children: ChildProcess[] = [];
  try {
    const paygraph = await start('dist/src/main.js', env);
    children.push(paygraph.child);
    // A row run alone needs no baseline beside it, except the throughput table, whose every figure is a ratio to it.
    // (It once got Paygraph itself as its "baseline": ratios near 1.0, and a 404 for the minimal row.)
    const needsBaseline = !only || only === 'throughput';
    const baseline = needsBaseline ? await start('dist/bench/baseline-server.js', env) : paygraph;
    if (needsBaseline) children.push(baseline.child);

    const token = await json(paygraph.baseUrl, 'POST', '/accesstoken/get', {
      client_id: 'test-client-123456',
      client_secret: 'test-secret-123456',
      'Ocp-Apim-Subscription-Key': 'test-key-123456',
    });
    const headers = {
      Authorization: `Bearer ${token.access_token}`,
      'Ocp-Apim-Subscription-Key': 'test-key-123456',
      'Merchant-Serial-Number': '123456',
      'Content-Type': 'application/json',
    };

    const call = (method: string, path: string, h: Record<string, string>, body?: unknown) => json(paygraph.baseUrl, method, path, h, body);
    // issue 23: deliveries against payment events at a fixed rate (`BENCH_ONLY=webhook-throughput` runs this row only).
    if (only === 'webhook-throughput') {
      process.stdout.write(`${renderWebhookThroughput(await runWebhookThroughput(call, url.toString()))}\n`);
      return;
    }
    // issue 36: the webhook latency row alone (`BENCH_ONLY=webhook-latency`; the soak runs it on its filled database).
    if (only === 'webhook-latency') {
      process.stdout.write(`${renderWebhookLatency(await runWebhookLatency(call, headers))}\n`);
      return;
    }
    // issue 33: the same load to receivers answering in 50-150 ms (`BENCH_ONLY=webhook-realistic`).
    if (only === 'webhook-realistic') {
      process.stdout.write(`${renderWebhookThroughput(await runWebhookThroughput(call, url.toString(), REALISTIC_RECEIVERS))}\n`);
      return;
    }
    const startInstance = async () => {
      const instance = await start('dist/src/main.js', env);
      children.push(instance.child);
      return instance;
    };
    // issue 23: rows that can run alone, each on instances of their own.
    // issue 36: the same creates from three instances, each fresh beside the one the other rows run on.
    const instanceCreates = async (count: number, label: string) => {
      const others = await Promise.all(Array.from({ length: count - 1 }, () => startInstance()));
      const result = await runInstanceCreates([paygraph, ...others], url.toString(), headers, {
        durationMs: DURATION_MS,
        warmUpMs: WARM_UP_MS,
      });
      return renderInstanceCreates(result, label);
    };
    const twoInstanceCreates = () =>
      instanceCreates(2, `Creates from two instances at concurrency 64 (${process.env.BENCH_TWO_INSTANCE_LABEL ?? 'this build'})`);
    const threeInstanceCreates = () =>
      instanceCreates(3, `Creates from three instances at concurrency 96 (${process.env.BENCH_TWO_INSTANCE_LABEL ?? 'this build'})`);
    // Writes go to the instance the other rows run on; the subscribers sit on a fresh one.
    const crossInstanceFanOut = () => runFanOut(startInstance, headers, { writeUrl: paygraph.baseUrl });
    if (only === 'two-instance-creates' || only === 'three-instance-creates' || only === 'fan-out' || only === 'fan-out-cross-instance') {
      const report =
        only === 'two-instance-creates'
          ? await twoInstanceCreates()
          : only === 'three-instance-creates'
            ? await threeInstanceCreates()
            : renderFanOut(only === 'fan-out' ? await runFanOut(startInstance, headers) : await crossInstanceFanOut());
      process.stdout.write(`${report}\n`);
      return;
    }

    // issues 20 and 33: the hostile documents, alone on a quiet instance (`BENCH_ONLY=fragment-fan-out` runs this row
    // only), sent with merchant B's token: a refused document is charged, and the quota spent is not merchant A's.
    const throughputOnly = only === 'throughput';
    const hostileToken = await json(paygraph.baseUrl, 'POST', '/accesstoken/get', {
      client_id: 'test-client-654321',
      client_secret: 'test-secret-654321',
      'Ocp-Apim-Subscription-Key': 'test-key-654321',
    });
    const hostileHeaders = {
      Authorization: `Bearer ${hostileToken.access_token}`,
      'Ocp-Apim-Subscription-Key': 'test-key-654321',
      'Content-Type': 'application/json',
    };
    const hostile = throughputOnly ? undefined : await runHostileDocuments(paygraph.baseUrl, hostileHeaders, { durationMs: DURATION_MS });
    if (hostile) process.stderr.write(`${renderHostileDocuments(hostile)}\n`);
    if (hostile && only === 'fragment-fan-out') {
      process.stdout.write(`${renderHostileDocuments(hostile)}\n`);
      return;
    }

    // Payments to capture from, round robin so row locks spread, and 60 with events for the page query.
    const capturable: string[] = [];
    for (let i = 0; i < 64; i++) {
      const reference = `bench-capture-${i}-${randomUUID()}`.slice(0, 50);
      await json(
        paygraph.baseUrl,
        'POST',
        '/epayment/v1/payments',
        { ...headers, 'Idempotency-Key': randomUUID() },
        paymentBody(reference, 65_000_000),
      );
      await json(paygraph.baseUrl, 'POST', `/epayment/v1/test/payments/${reference}/approve`, headers, {
        customer: { phoneNumber: '4791234567' },
      });
      await json(
        paygraph.baseUrl,
        'POST',
        `/epayment/v1/payments/${reference}/capture`,
        { ...headers, 'Idempotency-Key': randomUUID() },
        { modificationAmount: { currency: 'NOK', value: 1 } },
      );
      capturable.push(reference);
    }
    const run = async (baseUrl: string, expectStatus: number, next: (i: number) => LoadRequest, succeeded?: (body: string) => boolean) => {
      const options = { concurrency: CONCURRENCY, expectStatus, next, succeeded };
      // An unmeasured warm-up first (JIT, connection pools, plan caches), so no row pays for running first.
      await runLoad(baseUrl, { ...options, durationMs: WARM_UP_MS });
      // The serving process's CPU per request: on a shared machine, req/s follows the CPU each process was given in
      // that minute, while CPU per request is the work the code did.
      const pid = [paygraph, baseline].find((server) => server.baseUrl === baseUrl)?.child.pid;
      const before = processCpuMs(pid);
      const databaseBefore = await databaseCpu(database);
      const result = await runLoad(baseUrl, { ...options, durationMs: DURATION_MS });
      const requests = Math.max(1, result.requests);
      return {
        ...result,
        cpuMsPerRequest: (processCpuMs(pid) - before) / requests,
        databaseCpuMsPerRequest: cpuSince(databaseBefore, await databaseCpu(database)) / requests,
      };
    };
    // GraphQL answers 200 with `errors` or `userErrors` too: those bodies count as failures, not throughput.
    const runGraph = (next: (i: number) => LoadRequest) => run(paygraph.baseUrl, 200, next, graphqlSucceeded);
    const graph = (query: string, variables: Record<string, unknown>): LoadRequest => ({
      method: 'POST',
      path: '/graphql',
      headers,
      body: JSON.stringify({ query, variables }),
    });
    const newRef = () => `bench-${randomUUID()}`.slice(0, 50);
    const createRest = (): LoadRequest => ({
      method: 'POST',
      path: '/epayment/v1/payments',
      headers: { ...headers, 'Idempotency-Key': randomUUID() },
      body: JSON.stringify(paymentBody(newRef())),
    });
    const captureRest = (i: number): LoadRequest => ({
      method: 'POST',
      path: `/epayment/v1/payments/${capturable[i % capturable.length]}/capture`,
      headers: { ...headers, 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ modificationAmount: { currency: 'NOK', value: 1 } }),
    });
    const getRest = (i: number): LoadRequest => ({
      method: 'GET',
      path: `/epayment/v1/payments/${capturable[i % capturable.length]}`,
      headers,
    });
    const results: { operation: string; face: string; result: LoadResult & CpuFigures }[] = [];
    // `BENCH_ROWS=get,capture` measures only the operations named (by their first word), to iterate on a few rows.
    const rows = process.env.BENCH_ROWS?.split(',').map((name) => name.trim());
    const measure = async (operation: string, face: string, work: () => Promise<LoadResult & CpuFigures>) => {
      if (rows && !rows.includes(operation.split(' ')[0]!)) return;
      const result = await work();
      results.push({ operation, face, result });
      process.stderr.write(
        `${operation} ${face}: ${result.perSecond.toFixed(0)}/s p50 ${result.p50Ms.toFixed(1)} ms p99 ${result.p99Ms.toFixed(1)} ms, ` +
          `${result.failures} failures, ${result.cpuMsPerRequest?.toFixed(2)} CPU ms/request, ` +
          `${result.databaseCpuMsPerRequest?.toFixed(2)} database CPU ms/request\n`,
      );
    };

    await measure('create payment', 'baseline', () => run(baseline.baseUrl, 201, createRest));
    await measure('create payment', 'REST', () => run(paygraph.baseUrl, 201, createRest));
    await measure('create payment', 'GraphQL', () =>
      runGraph(() => graph(CREATE, { input: { ...paymentBody(newRef()), paymentMethod: 'WALLET', idempotencyKey: randomUUID() } })),
    );
    // The floor: create in one statement (bench/minimal-create.ts), against Paygraph's statement count per create.
    await measure('create payment', 'minimal', () => run(baseline.baseUrl, 201, () => ({ ...createRest(), path: '/minimal/payments' })));
    await measure('capture', 'baseline', () => run(baseline.baseUrl, 200, captureRest));
    await measure('capture', 'REST', () => run(paygraph.baseUrl, 200, captureRest));
    await measure('capture', 'GraphQL', () =>
      runGraph((i) =>
        graph(CAPTURE, {
          input: { reference: capturable[i % capturable.length], amount: { currency: 'NOK', value: 1 }, idempotencyKey: randomUUID() },
        }),
      ),
    );
    await measure('get payment', 'baseline', () => run(baseline.baseUrl, 200, getRest));
    await measure('get payment', 'REST', () => run(paygraph.baseUrl, 200, getRest));
    await measure('get payment', 'GraphQL', () => runGraph((i) => graph(GET, { r: capturable[i % capturable.length] })));
    await measure('page of 50 payments with events', 'baseline', () =>
      run(baseline.baseUrl, 200, () => ({ method: 'POST', path: '/page', headers, body: '{}' })),
    );
    await measure('page of 50 payments with events', 'GraphQL', () => runGraph(() => graph(PAGE, {})));
    // issue 36: searches, one whose matches are few however many payments the merchant has (a reference prefix), one
    // whose matches are many (a state and an amount). No baseline: the figures to compare are the soak's (bench/soak.ts).
    await measure('search by reference prefix', 'GraphQL', () =>
      runGraph(() => graph(SEARCH, { f: { referencePrefix: 'bench-capture-1' } })),
    );
    await measure('search by state and amount', 'GraphQL', () =>
      runGraph(() => graph(SEARCH, { f: { state: ['AUTHORIZED'], amountFrom: 1000 } })),
    );

    if (throughputOnly) {
      process.stdout.write(`${renderTable(results)}\n`);
      return;
    }

    // issue 9: the dashboard's payment page with each payment's order (category, image, receipt: one batch). It has
    // no baseline of its own, so it is reported beside the QR images rather than in the table.
    const ordersPage = await runGraph(() => graph(ORDERS_PAGE, {}));
    const ordersPageRow =
      `Page of 50 payments with their orders (GraphQL): ${ordersPage.perSecond.toFixed(0)} req/s, p50 ${ordersPage.p50Ms.toFixed(1)} ms, ` +
      `p99 ${ordersPage.p99Ms.toFixed(1)} ms, ${ordersPage.failures} failures (two SQL statements per page, test/graphql/statement-count.test.ts).`;
    process.stderr.write(`${ordersPageRow}\n`);
    const qrImages = await runQrImages(
      paygraph.baseUrl,
      (method, path, h, body) => json(paygraph.baseUrl, method, path, h, body),
      headers,
      {
        concurrency: CONCURRENCY,
        durationMs: DURATION_MS,
        warmUpMs: WARM_UP_MS,
      },
    );
    process.stderr.write(`${renderQrImages(qrImages)}\n`);

    const webhookLatency = await runWebhookLatency(call, headers);
    process.stderr.write(`${renderWebhookLatency(webhookLatency)}\n`);
    const webhookThroughput = await runWebhookThroughput(call, url.toString());
    process.stderr.write(`${renderWebhookThroughput(webhookThroughput)}\n`);
    const webhookRealistic = await runWebhookThroughput(call, url.toString(), REALISTIC_RECEIVERS);
    process.stderr.write(`${renderWebhookThroughput(webhookRealistic)}\n`);

    // An instance of its own on the same database, so its resident memory shows the subscribers, not the load above.
    const fanOut = await runFanOut(startInstance, headers);
    process.stderr.write(`${renderFanOut(fanOut)}\n`);
    const fanOutCrossInstance = await crossInstanceFanOut();
    process.stderr.write(`${renderFanOut(fanOutCrossInstance)}\n`);
    const twoInstance = await twoInstanceCreates();
    process.stderr.write(`${twoInstance}\n`);
    const threeInstance = await threeInstanceCreates();
    process.stderr.write(`${threeInstance}\n`);

    // Last: it adds a million rows to the database the rows above were measured on.
    const ledgerRead = await runLedgerRead(paygraph.baseUrl, baseline.baseUrl, url.toString(), headers);
    process.stderr.write(`${renderLedgerRead(ledgerRead)}\n`);

    const stamp = new Date().toISOString().slice(0, 10);
    const report = [
      `Run on ${stamp} with \`npm run bench\` (concurrency ${CONCURRENCY}, ${DURATION_MS / 1000} s per row after a ${WARM_UP_MS / 1000} s warm-up, ` +
        `PostgreSQL ${url.host}, Node ${process.version}, ${cpus().length} cores shared by every process of the run).`,
      renderTable(results),
      `### QR images and orders (issue 9)\n\n${renderQrImages(qrImages)}\n\n${ordersPageRow}`,
      renderWebhookLatency(webhookLatency),
      renderWebhookThroughput(webhookThroughput),
      renderWebhookThroughput(webhookRealistic),
      renderFanOut(fanOut),
      renderFanOut(fanOutCrossInstance),
      `### Creates from two instances (issue 23)\n\n${twoInstance}`,
      `### Creates from three instances (issue 36)\n\n${threeInstance}`,
      renderHostileDocuments(hostile!),
      renderLedgerRead(ledgerRead),
    ].join('\n\n');
    process.stdout.write(`${report}\n`);
    await keepInReadme(report);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    if (created) await admin(`drop database if exists ${database} with (force)`);
    // An instance still in its graceful shutdown would keep this process alive through its output pipe.
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** REST at least half the bare baseline; the graph at least 0.8 of REST for the same operation. */
const REST_TARGET = 0.5;
const GRAPH_TARGET = 0.8;

/** A process's CPU time so far (user + system), from /proc (Linux; 0 elsewhere, and the column stays empty-ish). */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100/s).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

interface CpuFigures {
  cpuMsPerRequest?: number;
  /** The database's CPU per request: every client backend connected to the run's database (its pools), from /proc. */
  databaseCpuMsPerRequest?: number;
}

/** CPU time so far (ms) of each PostgreSQL backend connected to `database`, by pid (same machine: loopback only). */
async function databaseCpu(database: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()",
    [database],
  );
  await client.end();
  return new Map(rows.map((row) => [row.pid, processCpuMs(row.pid)]));
}

/** The CPU the backends spent between two readings (a backend that left meanwhile is not counted). */
function cpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, now] of after) ms += now - (before.get(pid) ?? 0);
  return ms;
}

function renderTable(rows: { operation: string; face: string; result: LoadResult & CpuFigures }[]): string {
  const lines = [
    '### Throughput and latency',
    '',
    `Targets: REST ≥ ${REST_TARGET} × baseline, GraphQL ≥ ${GRAPH_TARGET} × REST. req/s counts successful requests only.`,
    '',
    '| operation | face | req/s | p50 ms | p99 ms | failures | server CPU ms/request | database CPU ms/request | vs baseline | GraphQL vs REST | target |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    // A row without a baseline (the searches) has no ratio to it.
    const base = rows.find((r) => r.operation === row.operation && r.face === 'baseline')?.result.perSecond ?? Number.NaN;
    const rest = rows.find((r) => r.operation === row.operation && r.face === 'REST')?.result.perSecond;
    const r = row.result;
    const vsBase = r.perSecond / base;
    const vsRest = row.face === 'GraphQL' && rest ? r.perSecond / rest : undefined;
    const target = row.face === 'REST' ? verdict(vsBase, REST_TARGET) : vsRest !== undefined ? verdict(vsRest, GRAPH_TARGET) : '';
    lines.push(
      `| ${row.operation} | ${row.face} | ${r.perSecond.toFixed(0)} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.failures} | ` +
        `${r.cpuMsPerRequest?.toFixed(2) ?? ''} | ${r.databaseCpuMsPerRequest?.toFixed(2) ?? ''} | ${Number.isNaN(vsBase) ? '' : vsBase.toFixed(2)} | ` +
        `${vsRest?.toFixed(2) ?? ''} | ${Number.isNaN(vsBase) ? '' : target} |`,
    );
  }
  return lines.join('\n');
}

const verdict = (ratio: number, target: number) => (ratio >= target ? 'met' : `**missed** (< ${target})`);

/** The latest figures live in bench/README.md between two markers, so the committed page is the last run. */
async function keepInReadme(report: string): Promise<void> {
  const path = join(root, 'bench/README.md');
  const readme = readFileSync(path, 'utf8');
  const begin = '<!-- latest-results:begin -->';
  const end = '<!-- latest-results:end -->';
  const from = readme.indexOf(begin);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`bench/README.md lacks the ${begin} … ${end} markers`);
  const updated = `${readme.slice(0, from + begin.length)}\n\n${report}\n\n${readme.slice(to)}`;
  // Formatted as `npm run lint` expects, so a committed run never fails the format check.
  writeFileSync(path, await format(updated, { ...(await resolveConfig(path)), filepath: path }));
}

await main();
