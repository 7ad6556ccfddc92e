#!/usr/bin/env node
/**
 * Refreshes test/durations.json (the order scripts/jest-test-sequencer.mjs runs the files in) from a whole run's
 * results: run a pass as `.ci/run` does, adding `-- --json --outputFile=test-artifacts/jest-pglite.json`, then
 * `node scripts/test-durations.mjs test-artifacts/jest-pglite.json pglite` (or `… jest-postgres.json postgres`).
 * Seconds per file, rounded; files the run did not have are dropped.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const [resultsFile, pass] = process.argv.slice(2);
if (!resultsFile || !['pglite', 'postgres'].includes(pass)) {
  process.stderr.write('usage: node scripts/test-durations.mjs <jest --json output> <pglite|postgres>\n');
  process.exit(2);
}
const root = new URL('..', import.meta.url).pathname;
const tableFile = new URL('../test/durations.json', import.meta.url);
const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
const seconds = Object.fromEntries(
  results.testResults
    .map((r) => [relative(root, r.name), Math.round((r.endTime - r.startTime) / 1000)])
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b)),
);
const table = JSON.parse(readFileSync(tableFile, 'utf8'));
writeFileSync(tableFile, `${JSON.stringify({ ...table, [pass]: seconds }, null, 2)}\n`);
process.stdout.write(`${Object.keys(seconds).length} files of the ${pass} pass written to test/durations.json\n`);
