/**
 * CI (.ci/run) runs this suite once per database. The browser tests (`*.browser.test.ts`: pages in Debian's chromium)
 * test pages, which do not depend on the database, so CI runs them in one pass only and tells the other pass so with
 * PAYGRAPH_BROWSER_TESTS=other-pass. Unset, as in `npm test` on a fresh clone, every test file runs.
 */
const browserTests = process.env.PAYGRAPH_BROWSER_TESTS ?? 'here';
if (!['here', 'other-pass'].includes(browserTests)) {
  throw new Error(`PAYGRAPH_BROWSER_TESTS must be "other-pass" (CI runs them in its other pass) or unset, got "${browserTests}"`);
}

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...(browserTests === 'other-pass' ? ['\\.browser\\.test\\.ts$'] : [])],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
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
  // Builds the pages' browser bundles (dist/pages/) when their sources changed: the app serves them.
  globalSetup: '<rootDir>/scripts/jest-global-setup.mjs',
};
