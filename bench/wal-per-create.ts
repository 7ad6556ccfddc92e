/**
 * The write-ahead log a created payment costs on a filled database (issue 36: bench/README.md, "Time-ordered payment
 * ids"). Not part of CI, loopback only. `npm run build`, then
 * `node --experimental-async-context-frame dist/bench/wal-per-create.js`, with:
 * - `WAL_DATABASE`: the database to create payments in (default `paygraph_soak`, which `npm run soak` fills);
 * - `WAL_APP_ROOTS`: comma-separated checkouts with a build (`dist/`), compared in alternating rounds (default this
 *   one);
 * - `WAL_CREATES` per round (default 20,000) and `WAL_ROUNDS` (default 3).
 *
 * Each round starts the checkout's service on the database (jobs off: no delivery is made, so the log is the creates'
 * own), takes a checkpoint (after it, the first change of each page writes the whole page to the log, which is what
 * random keys multiply), creates the payments over 16 connections and reads `pg_stat_wal` before and after. The
 * server's log is the whole cluster's: run it on a machine doing nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { databaseOn } from './database-url.js';
import { paymentBody } from './payment-body.js';
import { percentiles } from './percentiles.js';

const SERVER_URL = process.env.WAL_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = process.env.WAL_DATABASE ?? 'paygraph_soak';
const here = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const ROOTS = (process.env.WAL_APP_ROOTS ?? here).split(',').map((root) => resolve(root.trim()));
const CREATES = Number(process.env.WAL_CREATES ?? 20_000);
const ROUNDS = Number(process.env.WAL_ROUNDS ?? 3);
const CONCURRENCY = 16;
const MERCHANT = { msn: '123456', clientId: 'test-client-123456', clientSecret: 'test-secret-123456', key: 'test-key-123456' };

interface Wal {
  records: number;
  fpi: number;
  bytes: number;
}

const databaseUrl = (name: string) => databaseOn(SERVER_URL, name);

async function serve(root: string): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, ['--experimental-async-context-frame', join(root, 'dist/src/main.js')], {
    env: { ...process.env, DATABASE_URL: databaseUrl(DATABASE), PORT: '0', METRICS_PORT: '0', PAYGRAPH_RUN_JOBS: 'false' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"listening".*?"port":(\d+)/.exec(out);
      if (match) done(Number(match[1]));
    });
    child.on('exit', (code) => fail(new Error(`${root}: the service exited with ${code} before listening`)));
  });
  child.stdout!.resume();
  return { child, baseUrl: `http://127.0.0.1:${port}` };
}

async function token(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/accesstoken/get`, {
    method: 'POST',
    headers: { client_id: MERCHANT.clientId, client_secret: MERCHANT.clientSecret, 'Ocp-Apim-Subscription-Key': MERCHANT.key },
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function wal(db: pg.Client): Promise<Wal> {
  const { rows } = await db.query<{ records: string; fpi: string; bytes: string }>(
    'select wal_records as records, wal_fpi as fpi, wal_bytes as bytes from pg_stat_wal',
  );
  return { records: Number(rows[0]!.records), fpi: Number(rows[0]!.fpi), bytes: Number(rows[0]!.bytes) };
}

/** Creates `CREATES` payments over `CONCURRENCY` connections; the latencies of the successful ones. */
async function createPayments(baseUrl: string, accessToken: string): Promise<{ latencies: number[]; failures: number; seconds: number }> {
  const latencies: number[] = [];
  let failures = 0;
  let sent = 0;
  const run = randomUUID().slice(0, 8);
  const started = performance.now();
  const worker = async () => {
    while (sent < CREATES) {
      const i = sent++;
      const began = performance.now();
      const res = await fetch(`${baseUrl}/epayment/v1/payments`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${accessToken}`,
          'Ocp-Apim-Subscription-Key': MERCHANT.key,
          'Merchant-Serial-Number': MERCHANT.msn,
          'Content-Type': 'application/json',
          'Idempotency-Key': randomUUID(),
        },
        body: JSON.stringify(paymentBody(`wal-${run}-${i}`)),
      });
      await res.arrayBuffer();
      if (res.status === 201) latencies.push(performance.now() - began);
      else failures++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { latencies, failures, seconds: (performance.now() - started) / 1000 };
}

const admin = new pg.Client({ connectionString: databaseUrl(DATABASE) });
await admin.connect();
for (let round = 1; round <= ROUNDS; round++) {
  for (const root of ROOTS) {
    const { child, baseUrl } = await serve(root);
    try {
      // Counted once the first instance listens: it migrates a database that has no tables yet.
      if (round === 1 && root === ROOTS[0]) {
        const { rows: counted } = await admin.query<{ n: string }>('select count(*) as n from payment');
        process.stdout.write(`${DATABASE}: ${Number(counted[0]!.n).toLocaleString('en')} payments\n`);
      }
      const accessToken = await token(baseUrl);
      await admin.query('checkpoint');
      const before = await wal(admin);
      const { latencies, failures, seconds } = await createPayments(baseUrl, accessToken);
      const after = await wal(admin);
      const n = latencies.length;
      const { p50, p99 } = percentiles(latencies);
      process.stdout.write(
        `round ${round} ${root}: ${n} created (${failures} failed) in ${seconds.toFixed(1)} s, ${(n / seconds).toFixed(0)}/s, ` +
          `p50 ${p50.toFixed(1)} ms p99 ${p99.toFixed(1)} ms; per payment ${((after.bytes - before.bytes) / n / 1024).toFixed(2)} KB of log, ` +
          `${((after.fpi - before.fpi) / n).toFixed(2)} full-page images, ${((after.records - before.records) / n).toFixed(1)} records\n`,
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    }
  }
}
await admin.end();
