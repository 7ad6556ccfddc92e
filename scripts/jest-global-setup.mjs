import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// jest's global set-up: the pages' bundles must exist before a test app serves them (a no-op when up to date).
export default async function buildPagesForTests(globalConfig) {
  requireChromiumForBrowserTests(globalConfig);
  const { buildPages } = await import('./build-pages.mjs');
  await buildPages();
}

/**
 * The browser tests (`*.browser.test.ts`) drive Debian's chromium (test/pages/support/browser.ts, same path and
 * variable). When a run would start one and there is none, it stops here with one line, before any test app starts.
 */
function requireChromiumForBrowserTests(globalConfig) {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const elsewhere = [process.env.PAYGRAPH_BROWSER_TESTS, process.env.PAYGRAPH_DATABASE_FREE_TESTS].includes('other-pass');
  if (existsSync(chromium) || elsewhere) return;
  const root = join(globalConfig.rootDir, 'test');
  const patterns = globalConfig.testPathPatterns.toExecutor({ rootDir: globalConfig.rootDir });
  const selected = readdirSync(root, { recursive: true })
    .filter((file) => String(file).endsWith('.browser.test.ts'))
    .some((file) => !patterns.isSet() || patterns.isMatch(join(root, String(file))));
  if (!selected) return;
  process.stderr.write(
    `paygraph: the browser tests need Chromium, and there is none at ${chromium}: apt-get install -y chromium (or set CHROMIUM_PATH), or run the rest with PAYGRAPH_BROWSER_TESTS=other-pass npm test\n`,
  );
  process.exit(1);
}
