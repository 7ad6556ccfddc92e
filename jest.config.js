import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dependencyBundleMapper } from './scripts/jest-dependency-bundles.mjs';

/**
 * CI (.ci/run) runs this suite once per database. A file whose outcome does not depend on the database runs in one
 * pass only (the PostgreSQL one, whose workers mostly wait on the server, so it has CPU to spare): the browser tests
 * (`*.browser.test.ts`: pages in Debian's chromium), and every file whose opening docblock declares `@database-free`
 * (a test of pure code, or of service processes that open no database of the run). The declaration is checked where
 * the file runs: test/support/test-database.ts refuses to make a database for such a file (scripts/jest-environment.mjs
 * tells it), so a wrong one fails instead of costing the file its run on the other database.
 *
 * CI tells the PGlite pass with PAYGRAPH_DATABASE_FREE_TESTS=other-pass. PAYGRAPH_BROWSER_TESTS=other-pass leaves out
 * the browser tests alone (a machine without Chromium). Unset, as in `npm test` on a fresh clone, every file runs.
 */
const onePass = (name) => {
  const value = process.env[name] ?? 'here';
  if (!['here', 'other-pass'].includes(value))
    throw new Error(`${name} must be "other-pass" (run in the other pass) or unset, got "${value}"`);
  return value === 'other-pass';
};
const browserTestsElsewhere = onePass('PAYGRAPH_BROWSER_TESTS');
const databaseFreeElsewhere = onePass('PAYGRAPH_DATABASE_FREE_TESTS');

/** The files under test/ whose docblock, the first thing in the file as jest reads it, carries `@database-free`. */
function databaseFreeFiles() {
  const root = new URL('./test/', import.meta.url);
  return readdirSync(root, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.test.ts'))
    .filter((file) => /^\s*\/\*\*(?:(?!\*\/)[\s\S])*@database-free\b/.test(readFileSync(new URL(file, root), 'utf8')));
}
const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** @type {import('jest').Config} */
export default {
  testEnvironment: '<rootDir>/scripts/jest-environment.mjs',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(browserTestsElsewhere || databaseFreeElsewhere ? ['\\.browser\\.test\\.ts$'] : []),
    ...(databaseFreeElsewhere ? databaseFreeFiles().map((file) => `/test/${escaped(file)}$`) : []),
  ],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { ...(await dependencyBundleMapper(fileURLToPath(new URL('.', import.meta.url)))), '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'es6' },
      },
    ],
  },
  // A test that takes 15 s alone takes 30 s or more with the other core busy (CI beside another job); a timeout costs
  // nothing to a test that passes, so it leaves that room. Waits for a condition have their own, shorter deadline
  // (test/support/deadlines.ts), so a missing event fails with its own message first.
  testTimeout: 60_000,
  // Jest's default on a 2-core machine is one worker. On PGlite the database runs inside the worker, so two keep both
  // cores busy; on PostgreSQL a worker mostly waits (the server, a browser, a delivery: 6.5 min of CPU in a 7.7 min
  // run with two), so three.
  maxWorkers: process.env.DATABASE_URL ? 3 : 2,
  // jest keeps each test file's module registry alive after the file under --experimental-vm-modules (jestjs/jest#14605,
  // still in jest 30): a worker's heap grew by about 20 MB a file, to 1.2 GB after fifty, and the collector's work
  // grew with it, so a pass's last files ran 3 to 5 times slower than alone. A worker whose heap is past this limit
  // when it finishes a file is replaced by a new one (jest's own remedy for the leak). The PGlite pass took 811 s of
  // CPU (431 s) without it; 436 s (238 s) at 200 MB, 425 s (234 s) at 300 MB, 468 s (259 s) at 500 MB.
  workerIdleMemoryLimit: '300MB',
  // Longest file first (test/durations.json), so no long file starts last and holds up the end of a pass.
  testSequencer: '<rootDir>/scripts/jest-test-sequencer.mjs',
  // Builds the pages' browser bundles (dist/pages/) when their sources changed: the app serves them. A run with browser
  // tests also gets one chromium that its files share, closed by the tear-down.
  globalSetup: '<rootDir>/scripts/jest-global-setup.mjs',
  globalTeardown: '<rootDir>/scripts/jest-global-teardown.mjs',
};
