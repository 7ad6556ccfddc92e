import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { buildService, type BuiltService } from '../support/service-process.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * Issue 35: what the service says when it starts and stops, and a metrics port another process holds. The built
 * service runs as a child process, as an operator or a developer starts it.
 */
let built: BuiltService;
let holder: Server;
let heldPort: number;
let database: TestDatabase;

beforeAll(async () => {
  built = await buildService();
  database = await createTestDatabase({ migrated: true, inDirectory: true });
  // Another process's metrics (a second checkout, an exporter) on the port this service is told to use.
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, resolve));
  heldPort = (holder.address() as { port: number }).port;
}, 300_000);
afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  await database?.drop();
  await built?.remove();
});

interface Run {
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
  signal(name: NodeJS.Signals): void;
}

function start(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--experimental-async-context-frame', built.main], {
    cwd: built.dir,
    env: { PATH: process.env.PATH, PORT: '0', PAYGRAPH_LOG_REQUESTS: 'false', ...env },
  });
  const run: Run = {
    stdout: '',
    stderr: '',
    exited: new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => resolve(code));
    }),
    signal: (name) => child.kill(name),
  };
  child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  return run;
}

function lineOf(run: Run, msg: string): Record<string, unknown> | undefined {
  const line = run.stdout.split('\n').find((l) => l.includes(`"msg":"${msg}"`));
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
}

async function until(run: Run, msg: string): Promise<Record<string, unknown>> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const line = lineOf(run, msg);
    if (line) return line;
    if (run.stderr.includes('"level":"error"')) break;
  }
  throw new Error(`no "${msg}" line; stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
}

test('the test environment starts without metrics when their port is taken, with one warning, and says what it did at stop', async () => {
  const run = start({
    PAYGRAPH_ENV: 'test',
    ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : { DATA_DIR: database.dataDir }),
    METRICS_PORT: String(heldPort),
    PAYGRAPH_JOB_INTERVAL_MS: '300',
  });
  const listening = await until(run, 'listening');
  expect(listening).toMatchObject({ metrics: 'off', jobs: 'running, every 300 ms' });
  expect(run.stderr.trimEnd().split('\n')).toEqual([
    expect.stringMatching(
      new RegExp(
        `^paygraph: warning: METRICS_PORT: cannot listen on ${heldPort} \\(EADDRINUSE: .*\\); metrics are off \\(the test environment starts anyway, production refuses\\)$`,
      ),
    ),
  ]);
  const ready = await fetch(`http://127.0.0.1:${String(listening.port)}/readyz`);
  expect(ready.status).toBe(200);

  run.signal('SIGTERM');
  expect(await run.exited).toBe(0);
  expect(lineOf(run, 'stopping')).toMatchObject({ signal: 'SIGTERM', drain: expect.stringContaining('readyz answers 503') });
  expect(lineOf(run, 'stopped')).toMatchObject({
    signal: 'SIGTERM',
    requests: 'every request in flight answered',
    subscriptions: '0 socket(s) closed with 1012 Service Restart (clients reconnect elsewhere)',
    jobs: 'stopped; claimed deliveries finished',
    metrics: 'off',
  });
});

test('production refuses to start when the metrics port is taken: one line, exit code 1, before the database is opened', async () => {
  const run = start({
    PAYGRAPH_ENV: 'production',
    PAYGRAPH_TOKEN_SECRET: 'p'.repeat(32),
    // Nobody answers there: the refusal names the metrics port, checked first.
    DATABASE_URL: 'postgres://paygraph@127.0.0.1:1/paygraph',
    PUBLIC_URL: 'https://pay.example',
    METRICS_PORT: String(heldPort),
  });
  expect(await run.exited).toBe(1);
  expect(run.stderr.trimEnd().split('\n')).toEqual([
    expect.stringMatching(new RegExp(`^paygraph: METRICS_PORT: cannot listen on ${heldPort} \\(EADDRINUSE`)),
  ]);
  expect(run.stdout).not.toContain('listening');
});
