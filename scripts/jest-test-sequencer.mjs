import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import JestSequencer from '@jest/test-sequencer';

/**
 * Longest first, so the run's last minutes are not one long file on one worker while the others sit idle: each pass
 * of CI (.ci/run) ends when its slowest worker does, and a 3-minute file that starts last adds its 3 minutes to the
 * run. Jest's own order does this only from its cache of the last run on the same machine, which a fresh CI machine
 * has not got (and then it goes by file size: test-clocks, 90 s, is one of the small files), and which the two passes
 * overwrote for each other (so the PostgreSQL pass started its longest files, which the embedded pass skips in no
 * time, last of all); each pass now keeps a cache of its own.
 *
 * The order comes from test/durations.json (seconds per file in a CI run, per database, refreshed with
 * scripts/test-durations.mjs), then from jest's cache for a file the table lacks, then from file size. Every selected
 * file runs; only the order changes.
 */
const pass = process.env.DATABASE_URL ? 'postgres' : 'pglite';
const table = JSON.parse(readFileSync(new URL('../test/durations.json', import.meta.url), 'utf8'))[pass] ?? {};

/** The package's default export, as ESM sees it (its CommonJS module, or that module's `default`). */
const Sequencer = JestSequencer.default ?? JestSequencer;

export default class LongestFirst extends Sequencer {
  /** Jest's cache of the last run's times and failures, one per pass: a file's time on the other database says little. */
  _getCachePath(context) {
    return `${super._getCachePath(context)}-${pass}`;
  }

  sort(tests) {
    const seconds = (test) => {
      const known = table[relative(test.context.config.rootDir, test.path)];
      if (known !== undefined) return known;
      const cached = this.time(test);
      return cached === undefined ? undefined : cached / 1000;
    };
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    // Files of known duration from 5 s up, longest first; then the files of unknown duration (new ones), biggest
    // first; then the short ones, which fill the gaps at the end.
    const keyed = tests.map((test) => {
      const known = seconds(test);
      const group = known === undefined ? 1 : known >= 5 ? 0 : 2;
      return { test, group, seconds: known ?? 0, size: size(test) };
    });
    keyed.sort((a, b) => a.group - b.group || b.seconds - a.seconds || b.size - a.size);
    return keyed.map(({ test }) => test);
  }
}
