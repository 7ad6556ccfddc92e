import { jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli.js';
import { runListen } from '../../src/operator/listen/listen.command.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { freePort } from '../support/free-port.js';
import { MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 35: the README's walk-throughs run as written. Each block marked `<!-- walk-through: name -->` is run on its
 * own against the test environment: a shell block by bash (with curl and jq, as a reader pastes it), a JavaScript
 * block by this node as a module (`node file.mjs`, from the repository's root, so its imports resolve as after the
 * block's `npm i`), a GraphQL block as merchant 123456's query, and the command-line blocks (trigger, listen) by the
 * command line's own entry in this process (`npm run paygraph` runs the built `dist/src/cli.js`, which a test run does
 * not build). The only change is the address: `localhost:8080` is this test's service, and `localhost:3000`
 * (`PORT=3000`), the README's local webhook receiver, is a free port. Every other fenced block is in NOT_RUN with why,
 * so a block added later is either run or explained.
 *
 * One service for the file: the blocks share no state (each fetches its own token and uses its own references and
 * idempotency keys), so a fresh instance each would only cost time. The ledger block moves unit 123456's test clock
 * three days on; the blocks after it make new payments on that clock, which is what a reader's instance does too.
 */
interface Block {
  /** The walk-through's name, for a marked block. */
  name: string | undefined;
  language: string;
  code: string;
  /** The heading the block is under, and its first line: what names an unmarked block in NOT_RUN. */
  section: string;
  firstLine: string;
}

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const ROOT = new URL('../..', import.meta.url).pathname;

/** Every fenced block of the README, in order, with the walk-through marker on the line before it (blank lines aside). */
function fencedBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,6} (.+)$/.exec(lines[i]!);
    if (heading) section = heading[1]!;
    const fence = /^```(\S*)$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`README.md:${i + 1}: a fence that is never closed`);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const marker = /^<!-- walk-through: (.+?) -->$/.exec(lines[before] ?? '');
    const code = lines.slice(i + 1, end).join('\n');
    blocks.push({ name: marker?.[1], language: fence[1]!, code, section, firstLine: lines[i + 1] ?? '' });
    i = end;
  }
  return blocks;
}

const all = fencedBlocks(README);
const blocks = all.filter((b) => b.name !== undefined);

/** The blocks no test runs as written, each named by its section and first line, with why. */
const NOT_RUN: { section: string; firstLine: string; reason: string }[] = [
  {
    section: 'Paygraph',
    firstLine: 'npm ci && npm start    # the service on http://localhost:8080, embedded database in ./data (PGlite, nothing to install)',
    reason: 'installs, starts the service and runs the whole suite: what this test runs inside',
  },
  {
    section: 'Production',
    firstLine: 'export PAYGRAPH_ENV=production DATABASE_URL=postgres://paygraph:…@db/paygraph PUBLIC_URL=https://pay.example.com \\',
    reason:
      'needs a production deployment (its PostgreSQL, the registry download, an https PUBLIC_URL); test/operations/onboarding-cli.test.ts runs its commands',
  },
  {
    section: 'Integrating: recipes and request examples',
    firstLine:
      "// codegen.ts in the frontend's repository: npm i -D @graphql-codegen/cli @graphql-codegen/typescript @graphql-codegen/typescript-operations",
    reason: "a TypeScript codegen config for the frontend's repository, read by graphql-codegen there",
  },
  {
    section: 'Integrating: recipes and request examples',
    firstLine: "X_MS_DATE='Fri, 04 Dec 2026 23:42:41 GMT' HOST='127.0.0.1:3000'",
    reason: 'checks a delivery the reader saved (body.json and its headers); the signed-request walk-through runs the same signing',
  },
  {
    section: 'Trusted documents',
    firstLine: '// codegen.ts: the preset writes persisted-documents.json beside the typed documents',
    reason: "a TypeScript codegen config for the frontend's repository, read by graphql-codegen there",
  },
  {
    section: 'Trusted documents',
    firstLine: '// the client sends the id, never the text (the preset puts it on each document as __meta__.hash)',
    reason: "a TypeScript fragment of a frontend: its document, variables and credentials are the frontend's",
  },
  {
    section: 'Trusted documents',
    firstLine: 'npx graphql-codegen                                                   # 1. the manifest: src/gql/persisted-documents.json',
    reason:
      "needs a frontend's codegen manifest and restarts the service with documents required; test/graphql/trusted-documents.test.ts runs the command",
  },
  {
    section: 'Changing the schema: expand, then contract',
    firstLine: '-- Migration20261205050000PaymentReferencePrefix: the reference-prefix search',
    reason:
      'an operator runs it on a production database before an upgrade; test/platform/concurrent-migrations.test.ts runs its statements before the migrations and compares the indexes',
  },
];

/** The marked blocks that run until stopped (a receiver, a subscription): each is stopped once its output shows this. */
const UNTIL: Record<string, RegExp> = {
  // The trigger's captured payment, forwarded: the receiver verified listen's signature and answered 200.
  listen: /epayments\.payment\.captured\.v1 +trigger-captured-\S+ +200 /,
  'webhook-receiver': /"verified":true,"eventId":"\d+","body":\{[^\n]*"reference":"wh-verify-1"/,
  'subscription (graphql-ws)': /^\{"eventId":"\d+","name":"[A-Z_]+","reference":"[^"]+","amount":\{"value":\d+,"currency":"NOK"\}\}$/m,
  'subscription-over-sse (curl)': /^id: \d+\nevent: next\ndata: \{"data":\{"paymentEvents":\{"event":\{"eventId":"\d+"/m,
  'subscription (graphql-sse)': /^\{"eventId":"\d+","name":"[A-Z_]+","reference":"[^"]+"\}$/m,
  // Apollo's cache adds each object's __typename, which the block prints with the fields it asked for.
  'subscription (Apollo Client, multipart HTTP)': /^\{"__typename":"PaymentEvent","eventId":"\d+","name":"[A-Z_]+","reference":"[^"]+"\}$/m,
};

/** The marked shell blocks whose commands are `npm run paygraph -- …` lines, run by the command line's entry here. */
const COMMAND_LINE = new Set(['trigger', 'listen']);

let t: TestApp;
let receiverPort: number;

beforeAll(async () => {
  t = await startTestApp();
  receiverPort = await freePort();
});
afterAll(() => t?.close());

test('the table "What we accept beyond the public definitions" has the rows of Express, profile data and the error codes (issue 34)', () => {
  const section = README.slice(README.indexOf('## What we accept beyond the public definitions'), README.indexOf('## Configuration'));
  const rows = section.split('\n').filter((line) => line.startsWith('| '));
  const row = (...words: string[]) => rows.filter((line) => words.every((word) => line.includes(word)));
  expect(
    row('`shipping` on `POST /epayment/v1/payments`', '`fixedOptions`', '`dynamicOptions`', '`allowedCountries`', 'FACTS §14.1'),
  ).toHaveLength(1);
  expect(
    row('`shippingDetails`', '`userDetails`', '`GET /epayment/v1/payments/{reference}`', '`epayments.payment.authorized.v1`'),
  ).toHaveLength(1);
  expect(row('"ErrorCode"', '4100-4130', '5020', '6010', '10020', 'FACTS §14.3')).toHaveLength(1);
});

test('every fenced block of the README is a walk-through this test runs, or is listed as not runnable with why', () => {
  expect(blocks.map((b) => b.name)).toEqual([
    'user-profile',
    'first-payment',
    'trigger',
    'listen',
    'wallet-app',
    'webhook-receiver',
    'signed-request',
    'subscription (graphql-ws)',
    'subscription-over-sse (curl)',
    'subscription (graphql-sse)',
    'subscription (Apollo Client, multipart HTTP)',
    'qr',
    'psp',
    'checkout',
    'product-orders',
    'attention (the graph, as merchant 123456)',
    'ledger',
    'management',
  ]);
  expect(blocks.filter((b) => !['sh', 'js', 'graphql'].includes(b.language))).toEqual([]);
  // Every marker is followed by its block: none is left behind a paragraph, where it would mark nothing.
  expect(README.match(/^<!-- walk-through:/gm)).toHaveLength(blocks.length);
  // A fence this reading would not see (indented, or with text after the language) would hide its block from the check.
  expect(README.match(/^[ \t]*```/gm)).toHaveLength(2 * all.length);
  const unmarked = all.filter((b) => b.name === undefined).map(({ section, firstLine }) => ({ section, firstLine }));
  expect(unmarked).toEqual(NOT_RUN.map(({ section, firstLine }) => ({ section, firstLine })));
  for (const { reason } of NOT_RUN) expect(reason).toMatch(/^[^\n]{10,200}$/);
});

const running = new Set<ReturnType<typeof spawn>>();
afterEach(() => {
  // A failed block may leave its background receiver: its whole process group goes with it.
  for (const child of running) stopGroup(child.pid!);
  running.clear();
});

function stopGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // Ended already.
  }
}

/** The block with the addresses of this run: the service's, and a free port for the README's receiver on 3000. */
function addressed(code: string): string {
  const service = new URL(t.baseUrl).host;
  return code
    .replaceAll('localhost:8080', service)
    .replaceAll('localhost:3000', `localhost:${receiverPort}`)
    .replaceAll('PORT=3000', `PORT=${receiverPort}`);
}

/**
 * Runs a program in a process group of its own, until it ends (it must end with 0), or, with `until`, until its
 * output matches, when the group is stopped as a reader's Ctrl-C would.
 */
function run(command: string, args: string[], until: RegExp | undefined): Promise<string> {
  const child = spawn(command, args, { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      stopGroup(child.pid!);
      reject(new Error(`the block did not ${until ? `print ${until}` : 'end'} in time:\n${stderr}\n${stdout}`));
    }, CONDITION_DEADLINE_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (until?.test(stdout)) {
        clearTimeout(timer);
        stopGroup(child.pid!);
        resolve(stdout);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (until && until.test(stdout)) return;
      if (code === 0 && !until) return resolve(stdout);
      reject(new Error(`the block ended (exit ${code ?? signal}) ${until ? `before printing ${until}` : ''}:\n${stderr}\n${stdout}`));
    });
  }).finally(() => {
    // What the block left running (a receiver started with `&`) is still in the group after the block ended.
    stopGroup(child.pid!);
    running.delete(child);
  });
}

/**
 * A shell block as bash runs it from a reader's terminal, stopping at the first failing command: `curl` fails on an
 * HTTP error status (`--fail-with-body`, so the body still shows), and an unset variable is an error, so a block that
 * relies on another's `$TOKEN` fails here. The group goes at the end: a receiver the block left running too.
 */
function runShell(code: string, until: RegExp | undefined): Promise<string> {
  const script = `set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${addressed(code)}`;
  return run('bash', ['-c', script], until);
}

/** A JavaScript block as `node file.mjs` runs it: a module, whose imports resolve from the repository's packages. */
function runModule(code: string, until: RegExp | undefined): Promise<string> {
  return run(process.execPath, ['--input-type=module', '-e', addressed(code)], until);
}

/**
 * The test app's clock stands still unless moved; a reader's service's runs. While a block runs, the app's clock follows
 * real time, so what falls due on the reader's service falls due here: the receiver block's first delivery can come
 * before its receiver listens, and is then retried two seconds on.
 */
async function onRunningClock<T>(work: Promise<T>): Promise<T> {
  let last = Date.now();
  const tick = setInterval(() => {
    const now = Date.now();
    t.clock.advance(now - last);
    last = now;
  }, 100);
  try {
    return await work;
  } finally {
    clearInterval(tick);
  }
}

/**
 * A command-line block, line by line, as a reader's shells run it: `npm start &` is this test's service; each
 * `npm run paygraph -- …` runs the command line's entry (what `dist/src/cli.js` runs) with PAYGRAPH_URL naming the
 * service, as the default http://localhost:8080 names a reader's; `NAME=value` before a command is its environment, a
 * value `$(npm run -s paygraph -- …)` that command's output; `node <file> &` starts a process in the background. `listen
 * --forward-to`, which runs until Ctrl-C, runs beside the lines after it (a reader's second shell) by its own entry,
 * with a stop signal for the Ctrl-C; the next line waits for its start line, as a reader waits to see it. The block
 * runs in an empty directory, where listen keeps its secret and cursor, as in a fresh checkout; with `until`, it ends
 * once its output shows that. Any other line fails the block: this runner would not run it as bash does.
 */
async function runCommandLine(code: string, until: RegExp | undefined): Promise<string> {
  let printed = '';
  const print = (line: string) => (printed += `${line}\n`);
  const paygraph = async (args: string[], env: NodeJS.ProcessEnv): Promise<string> => {
    let out = '';
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((printed += String(chunk)), true));
    let status: number;
    try {
      status = await runCli(args, env);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    if (status !== 0) throw new Error(`\`paygraph ${args.join(' ')}\` ended with ${status}:\n${printed}${out}`);
    return out;
  };
  const commands = addressed(code)
    .replaceAll('\\\n', ' ')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stop = new AbortController();
  const listening: Promise<number>[] = [];
  const directory = process.cwd();
  const state = await mkdtemp(join(tmpdir(), 'paygraph-readme-'));
  process.chdir(state);
  try {
    for (const command of commands) {
      if (command === 'npm start &') continue;
      const line = /^((?:[A-Z_]+=(?:\$\([^)]*\)|\S+)\s+)*)(.+?)(\s+&)?$/.exec(command)!;
      const env: NodeJS.ProcessEnv = { ...process.env, PAYGRAPH_URL: t.baseUrl };
      for (const [, name, value] of line[1]!.matchAll(/([A-Z_]+)=(\$\([^)]*\)|\S+)/g)) {
        const substituted = /^\$\(npm run -s paygraph -- (.+)\)$/.exec(value!)?.[1];
        if (value!.startsWith('$(') && !substituted) throw new Error(`not a substitution this test runs: ${value}`);
        env[name!] = substituted ? (await paygraph(substituted.split(/\s+/), env)).trim() : value;
      }
      const program = line[2]!;
      const background = line[3] !== undefined;
      const args = /^npm run (?:-s )?paygraph -- (.+)$/.exec(program)?.[1]?.split(/\s+/);
      if (args?.[0] === 'listen' && args.includes('--forward-to') && !background) {
        const output = { delivery: print, status: (status: string) => print(`paygraph listen: ${status}`) };
        listening.push(runListen(args.slice(1), { env, stop: stop.signal, output }));
        await until_(
          () => /paygraph listen: forwarding /.test(printed),
          () => printed,
        );
      } else if (args && !background) {
        // Not `printed += await …`: that would drop what listen and the receiver print meanwhile.
        const out = await paygraph(args, env);
        printed += out;
      } else if (/^node \S+$/.test(program) && background) {
        const child = spawn(process.execPath, [program.slice('node '.length)], { cwd: ROOT, env, detached: true });
        running.add(child);
        child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      } else throw new Error(`not a command this test runs as written: ${command}`);
    }
    if (until)
      await until_(
        () => until.test(printed),
        () => printed,
      );
  } finally {
    stop.abort();
    const ended = await Promise.all(listening);
    process.chdir(directory);
    await rm(state, { recursive: true, force: true });
    for (const child of running) stopGroup(child.pid!);
    if (ended.some((status) => status !== 0)) throw new Error(`listen ended with ${ended.join(', ')}:\n${printed}`);
  }
  return printed;
}

async function until_(holds: () => boolean, log: () => string): Promise<void> {
  for (const deadline = Date.now() + CONDITION_DEADLINE_MS; !holds(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error(`timed out; the block printed:\n${log()}`);
  }
}

for (const block of blocks) {
  test(`walk-through "${block.name}" runs as written`, async () => {
    if (block.language === 'graphql') {
      const res = await new MerchantClient(t.baseUrl).graphql(block.code);
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data).toBeDefined();
      return;
    }
    const until = UNTIL[block.name!];
    const output = await onRunningClock(
      COMMAND_LINE.has(block.name!)
        ? runCommandLine(block.code, until)
        : block.language === 'js'
          ? runModule(block.code, until)
          : runShell(block.code, until),
    );
    // Each request printed an answer, none of them a graph error or a refused mutation.
    expect(output).not.toMatch(/"errors":\[|"userErrors":\[\{/);
    expect(output.length).toBeGreaterThan(0);
    EXPECTED[block.name!]?.(output);
  });
}

/** What a block's last answers must say, beyond succeeding: the README's `# →` lines, where they name a result. */
const EXPECTED: Record<string, (output: string) => void> = {
  'user-profile': (output) =>
    expect(output).toMatch(
      /\{"sub":"c06c4afe-d9e1-4c5d-939a-177d752a0944","sid":"[^"]+","name":"Kari Nordmann",[^\n]*"email":"kari.nordmann@example.com"[^\n]*"street_address":"Storgata 1"/,
    ),
  'first-payment': (output) =>
    expect(output).toMatch(/"reference":"my-first-payment"[\s\S]*"capturedAmount":\{"currency":"NOK","value":10000\}/),
  trigger: (output) => {
    expect(output).toMatch(/payment\.captured[\s\S]*scenario: payment\.captured\n\s*msn: 123456\n/);
    expect(output).toMatch(/epayments\.payment\.created\.v1[^\n]*\n[^\n]*authorized\.v1[^\n]*\n[^\n]*captured\.v1/);
    expect(output).toMatch(/\{"scenario":"qr\.check-in","msn":"654321"[^\n]*"user\.checked-in\.v1"/);
  },
  // Each of the trigger's events forwarded in order, each signature verified by the sample receiver with listen's secret.
  listen: (output) => {
    const reference = /^reference: (trigger-captured-\S+)$/m.exec(output)![1]!;
    expect(output).toMatch(
      new RegExp(['created', 'authorized', 'captured'].map((name) => `payment\\.${name}\\.v1 +${reference} +200 `).join('[\\s\\S]*')),
    );
    expect(output.match(new RegExp(`^\\{"verified":true,[^\\n]*"reference":"${reference}"`, 'gm'))).toHaveLength(3);
  },
  'wallet-app': (output) =>
    expect(output).toContain('{"data":{"walletApprovePayment":{"payment":{"state":"AUTHORIZED"},"userErrors":[]}}}'),
  // The receiver answers the made-up secret's signature: its line, then curl's status.
  'signed-request': (output) => expect(output).toMatch(/\{"verified":true,[^\n]*"reference":"test-1"[^\n]*\}\n200\n/),
  qr: (output) => expect(output).toMatch(/"id":"shop-door".*"redirectUrl":"https:\/\/example.com\/menu"/),
  psp: (output) => expect(output).toMatch(/"pspTransactionId":"psptx1".*"vippsRedirectUrl":"http/),
  checkout: (output) => expect(output).toMatch(/"checkoutFrontendUrl":"http[^"]*\/checkout\/page\?token=/),
  'product-orders': (output) => expect(output).toMatch(/"prefillStatus":"RECEIVED"/),
  ledger: (output) => expect(output).toMatch(/"lastPayout":"2000001"/),
  management: (output) => expect(output).toMatch(/"MerchantList":\[\{"orgno":"920000002"[\s\S]*"pricePackages":\{"edges":\[\{"node"/),
};
