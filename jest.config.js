/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
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
  testTimeout: 30000,
  // Jest's default on a 2-core machine is one worker. On PGlite the database runs inside the worker, so two keep both
  // cores busy; on PostgreSQL a worker mostly waits (the server, a browser, a delivery: 6.5 min of CPU in a 7.7 min
  // run with two), so three.
  maxWorkers: process.env.DATABASE_URL ? 3 : 2,
  // Builds the pages' browser bundles (dist/pages/) when their sources changed: the app serves them.
  globalSetup: '<rootDir>/scripts/jest-global-setup.mjs',
};
