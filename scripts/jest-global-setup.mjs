import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// jest's global set-up: the pages' bundles must exist before a test app serves them (a no-op when up to date), and a
// run with browser tests gets its one chromium, started meanwhile.
export default async function setUpTestRun(globalConfig) {
  delete process.env.PAYGRAPH_BROWSER_ENDPOINT; // one inherited from an enclosing run is not this run's
  const browser = browserTestsInRun(globalConfig) && startSharedBrowser();
  const { buildPages } = await import('./build-pages.mjs');
  await Promise.all([buildPages(), browser]);
}

/**
 * Whether the run may start a browser test (`*.browser.test.ts`, which drive Debian's chromium: test/pages/support/
 * browser.ts, same path and variable). When it would and there is no chromium, it stops here with one line, before
 * any test app starts.
 */
function browserTestsInRun(globalConfig) {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const elsewhere = [process.env.PAYGRAPH_BROWSER_TESTS, process.env.PAYGRAPH_DATABASE_FREE_TESTS].includes('other-pass');
  if (elsewhere) return false;
  const root = join(globalConfig.rootDir, 'test');
  const patterns = globalConfig.testPathPatterns.toExecutor({ rootDir: globalConfig.rootDir });
  const selected = readdirSync(root, { recursive: true })
    .filter((file) => String(file).endsWith('.browser.test.ts'))
    .some((file) => !patterns.isSet() || patterns.isMatch(join(root, String(file))));
  if (!selected || existsSync(chromium)) return selected;
  process.stderr.write(
    `paygraph: the browser tests need Chromium, and there is none at ${chromium}: apt-get install -y chromium (or set CHROMIUM_PATH), or run the rest with PAYGRAPH_BROWSER_TESTS=other-pass npm test\n`,
  );
  process.exit(1);
}

/**
 * One chromium for the whole run instead of one per browser test file (a launch and close cost about 2.5 s of CPU):
 * a `chromium.launchServer()` in this process, whose websocket the workers inherit in PAYGRAPH_BROWSER_ENDPOINT; each
 * file connects and makes contexts of its own (test/pages/support/browser.ts, `launchBrowser`). The global tear-down
 * (scripts/jest-global-teardown.mjs) closes it; so does this process's end, however it ends.
 */
async function startSharedBrowser() {
  const { launchSharedBrowser } = await import('../test/pages/support/browser.ts');
  const server = await launchSharedBrowser();
  globalThis.paygraphSharedBrowser = server;
  process.env.PAYGRAPH_BROWSER_ENDPOINT = server.wsEndpoint();
}
