import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 35: the README's walk-throughs run as written. Each block marked `<!-- walk-through: name -->` is run on its
 * own against the test environment: a shell block by bash (with curl and jq, as a reader pastes it), a GraphQL block
 * as merchant 123456's query. The only change is the address: `localhost:8080` is this test's service.
 *
 * One service for the file: the blocks share no state (each fetches its own token and uses its own references and
 * idempotency keys), so a fresh instance each would only cost time. The ledger block moves unit 123456's test clock
 * three days on; the blocks after it make new payments on that clock, which is what a reader's instance does too.
 */
interface WalkThrough {
  name: string;
  language: string;
  code: string;
}

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

function walkThroughs(markdown: string): WalkThrough[] {
  const marked = /<!-- walk-through: ([^>]+?) -->\s*\n```(\w+)\n([\s\S]*?)\n```/g;
  return [...markdown.matchAll(marked)].map(([, name, language, code]) => ({ name: name!, language: language!, code: code! }));
}

const blocks = walkThroughs(README);
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

test('the README marks its walk-throughs, and each is a block the test knows how to run', () => {
  expect(blocks.map((b) => b.name)).toEqual([
    'first-payment',
    'wallet-app',
    'qr',
    'psp',
    'checkout',
    'product-orders',
    'attention (the graph, as merchant 123456)',
    'ledger',
    'management',
  ]);
  expect(blocks.filter((b) => !['sh', 'graphql'].includes(b.language))).toEqual([]);
  // Every marker is followed by its block: none is left behind a paragraph, where it would mark nothing.
  expect(README.match(/^<!-- walk-through:/gm)).toHaveLength(blocks.length);
});

/**
 * Runs a shell block as bash would from a reader's terminal, stopping at the first failing command: `curl` fails on
 * an HTTP error status (`--fail-with-body`, so the body still shows), and an unset variable is an error, so a block
 * that relies on another's `$TOKEN` fails here.
 */
async function runShell(code: string): Promise<string> {
  const address = new URL(t.baseUrl).host;
  const script = `set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${code.replaceAll('localhost:8080', address)}`;
  try {
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { timeout: 60_000, maxBuffer: 8 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    throw new Error(`the block failed (exit ${failed.code}):\n${failed.stderr}\n${failed.stdout}`);
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
    const output = await runShell(block.code);
    // Each curl printed an answer, none of them a graph error or a refused mutation.
    expect(output).not.toMatch(/"errors":\[|"userErrors":\[\{/);
    expect(output.length).toBeGreaterThan(0);
    EXPECTED[block.name]?.(output);
  });
}

/** What a block's last answers must say, beyond succeeding: the README's `# →` lines, where they name a result. */
const EXPECTED: Record<string, (output: string) => void> = {
  'first-payment': (output) =>
    expect(output).toMatch(/"reference":"my-first-payment"[\s\S]*"capturedAmount":\{"currency":"NOK","value":10000\}/),
  'wallet-app': (output) =>
    expect(output).toContain('{"data":{"walletApprovePayment":{"payment":{"state":"AUTHORIZED"},"userErrors":[]}}}'),
  qr: (output) => expect(output).toMatch(/"id":"shop-door".*"redirectUrl":"https:\/\/example.com\/menu"/),
  psp: (output) => expect(output).toMatch(/"pspTransactionId":"psptx1".*"vippsRedirectUrl":"http/),
  checkout: (output) => expect(output).toMatch(/"checkoutFrontendUrl":"http[^"]*\/checkout\/page\?token=/),
  'product-orders': (output) => expect(output).toMatch(/"prefillStatus":"RECEIVED"/),
  ledger: (output) => expect(output).toMatch(/"lastPayout":"2000001"/),
  management: (output) => expect(output).toMatch(/"MerchantList":\[\{"orgno":"920000002"[\s\S]*"pricePackages":\{"edges":\[\{"node"/),
};
