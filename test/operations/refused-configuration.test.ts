/**
 * @database-free (each case is a child process with settings of its own, which opens no database of the run: CI runs
 * this file in one pass, jest.config.js)
 */
import { spawn } from 'node:child_process';
import { buildService, type BuiltService } from '../support/service-process.js';

/**
 * Issue 21 point 3: production refuses unsafe configuration at start, as one line naming the variable and exit
 * code 1, with no stack trace. Each case is the built service run as a child process, as an operator starts it.
 */
let built: BuiltService;

beforeAll(async () => {
  built = await buildService();
}, 300_000);
afterAll(() => built?.remove());

const production = {
  PAYGRAPH_ENV: 'production',
  PAYGRAPH_TOKEN_SECRET: 'p'.repeat(32),
  DATABASE_URL: 'postgres://paygraph@127.0.0.1:1/paygraph',
  PUBLIC_URL: 'https://pay.example',
};

function start(env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Any free metrics port: it is taken before the database is opened, and 9464 may be another process's here.
  const childEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, PORT: '0', METRICS_PORT: '0', PAYGRAPH_LOG_REQUESTS: 'false' };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) childEnv[name] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--experimental-async-context-frame', built.main], { cwd: built.dir, env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test.each([
  ['no DATABASE_URL (the embedded database)', { DATABASE_URL: undefined }, /^paygraph: DATABASE_URL must be set in production/],
  ['a DATABASE_URL that is not PostgreSQL', { DATABASE_URL: 'mysql://db/paygraph' }, /^paygraph: DATABASE_URL must be a postgres/],
  ['a PUBLIC_URL that is not https', { PUBLIC_URL: 'http://localhost:8080' }, /^paygraph: PUBLIC_URL must be an https URL in production/],
  ['no PUBLIC_URL', { PUBLIC_URL: undefined }, /^paygraph: PUBLIC_URL must be set in production/],
  ['no token secret', { PAYGRAPH_TOKEN_SECRET: undefined }, /^paygraph: PAYGRAPH_TOKEN_SECRET must be set to at least 32 bytes/],
  ['a token secret of 31 bytes', { PAYGRAPH_TOKEN_SECRET: 'p'.repeat(31) }, /^paygraph: PAYGRAPH_TOKEN_SECRET/],
  ['an unknown PAYGRAPH_ENV', { PAYGRAPH_ENV: 'staging' }, /^paygraph: PAYGRAPH_ENV must be "test" or "production"/],
  ['a PORT that is no port', { PORT: 'http' }, /^paygraph: PORT must be an integer/],
  ['a METRICS_PORT that is no port', { METRICS_PORT: '99999' }, /^paygraph: METRICS_PORT must be an integer/],
  ['an interval that is no number', { PAYGRAPH_JOB_INTERVAL_MS: 'soon' }, /^paygraph: PAYGRAPH_JOB_INTERVAL_MS must be a positive integer/],
  ['a database nobody answers at', {}, /^paygraph: DATABASE_URL: cannot open the database \(ECONNREFUSED/],
])('%s: one line naming the variable, exit code 1, no stack trace', async (_, overrides, message) => {
  const run = await start({ ...production, ...overrides });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(message);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout).not.toContain('listening');
});
