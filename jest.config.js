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
  // Jest's default on a 2-core machine is one worker; most test time is waiting (the database, a browser, a
  // delivery), so two workers take the suite's time from ~25 to ~15 minutes of CI on such a machine.
  maxWorkers: 2,
  // Builds the pages' browser bundles (dist/pages/) when their sources changed: the app serves them.
  globalSetup: '<rootDir>/scripts/jest-global-setup.mjs',
};
