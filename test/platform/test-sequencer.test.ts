import { readFileSync } from 'node:fs';
import { onPostgres } from '../support/test-database.js';

/**
 * The order CI runs the files of a pass in (scripts/jest-test-sequencer.mjs): the files test/durations.json times
 * from 5 s up, longest first; then the files it does not know, biggest first; then the short ones. Every file given
 * comes back once.
 */
interface SequencedTest {
  path: string;
  context: { config: { rootDir: string; cache: boolean; cacheDirectory: string; id: string }; hasteFS: { getSize(path: string): number } };
}
type Sort = (tests: SequencedTest[]) => SequencedTest[];

const ROOT = '/repo';
const table = (JSON.parse(readFileSync(new URL('../durations.json', import.meta.url), 'utf8')) as Record<string, Record<string, number>>)[
  onPostgres ? 'postgres' : 'pglite'
]!;

async function sequencer(): Promise<{ sort: Sort }> {
  const module = (await import('../../scripts/jest-test-sequencer.mjs' as string)) as { default: new (options: object) => { sort: Sort } };
  return new module.default({});
}

function testsOf(sizes: Record<string, number>): SequencedTest[] {
  // No cache of earlier runs: the order comes from the table and the sizes alone.
  const config = { rootDir: ROOT, cache: false, cacheDirectory: '/nonexistent', id: 'sequencer-test' };
  const hasteFS = { getSize: (path: string) => sizes[path.slice(ROOT.length + 1)] ?? 0 };
  return Object.keys(sizes).map((file) => ({ path: `${ROOT}/${file}`, context: { config, hasteFS } }));
}

test('known long files first, longest first; then unknown files, biggest first; then known short ones', async () => {
  const known = Object.entries(table).sort(([, a], [, b]) => b - a);
  const long = known.filter(([, seconds]) => seconds >= 5).map(([file]) => file);
  const short = known.filter(([, seconds]) => seconds < 5).map(([file]) => file);
  expect(long.length).toBeGreaterThan(1);
  const sizes: Record<string, number> = {
    'test/new/small.test.ts': 1_000,
    'test/new/big.test.ts': 90_000,
    // Smaller on disk than any new file, yet before them: the table goes by time, not size. Files of equal time go
    // biggest first, so the sizes here fall in the table's order.
    ...Object.fromEntries(long.map((file, i) => [file, 100 + long.length - i])),
    // Biggest of all on disk, yet last: the table knows them as short.
    ...Object.fromEntries(short.map((file) => [file, 200_000])),
  };
  const sorted = (await sequencer()).sort(testsOf(sizes)).map((t) => t.path.slice(ROOT.length + 1));
  expect(sorted).toEqual([...long, 'test/new/big.test.ts', 'test/new/small.test.ts', ...short]);
});
