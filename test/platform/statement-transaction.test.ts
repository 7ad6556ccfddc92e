import { forkEm } from '../../src/platform/db/orm.js';
import { inStatementTransaction } from '../../src/platform/db/statement-transaction.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * The statement transaction sends the ORM's statements with their values inlined by the ORM's platform (no values
 * are bound: a message of several statements, `begin; …` and `…; commit`, can only be a simple query). This canary
 * fails if an ORM upgrade changes how values are inlined in a way that no longer round-trips.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  await forkEm(t.app.services.orm).execute(
    'create table if not exists canary_value (id serial primary key, text_value text, number_value numeric, big_value bigint, document jsonb)',
  );
});
afterAll(() => t.close());

const TEXTS = [
  "it's",
  "''; drop table canary_value; --",
  'back\\slash \\\\ double \\n not a newline',
  "E'\\x41' and $1 and ? and $$dollar$$",
  'unicode: ø æ å 漢字 😀 \u00e9\u0301',
  'line\nbreak\ttab',
  '',
];

const DOCUMENT = {
  quote: 'it\'s "quoted"',
  backslash: 'C:\\path\\to\\file',
  unicode: 'ø 😀',
  nested: { list: [1, -2.5, null, true, 'x?y'], empty: {} },
  number: Number.MAX_SAFE_INTEGER,
};

test('values the ORM inlines (quotes, backslashes, unicode, numbers, null, a JSON document) come back as they were sent', async () => {
  const numbers = [0, -1, 1.5, Number.MAX_SAFE_INTEGER];
  const sent = TEXTS.map((text, i) => ({ text, number: numbers[i % numbers.length]!, big: i === 0 ? null : Number.MAX_SAFE_INTEGER - i }));
  const ids = await inStatementTransaction<{ id: number }, number[]>(
    forkEm(t.app.services.orm),
    {
      sql: `insert into canary_value (text_value, number_value, big_value, document) values ${sent.map(() => '(?, ?, ?, ?::jsonb)').join(', ')} returning id`,
      params: sent.flatMap((v) => [v.text, v.number, v.big, JSON.stringify(DOCUMENT)]),
    },
    async (rows, transaction) => {
      // A statement between the first and the last runs in the transaction: it sees the first's rows.
      const [seen] = await transaction.query<{ count: string | number }>({
        sql: 'select count(*) as count from canary_value where id in (?)',
        params: [rows.map((r) => r.id)],
      });
      expect(Number(seen!.count)).toBe(sent.length);
      return {
        value: rows.map((r) => Number(r.id)),
        last: {
          sql: 'insert into canary_value (text_value, number_value, big_value, document) values (?, ?, ?, ?)',
          params: [null, null, null, null],
        },
      };
    },
  );
  const stored = await forkEm(t.app.services.orm).execute<
    { text_value: string | null; number_value: string | number; big_value: string | number | null; document: unknown }[]
  >('select text_value, number_value, big_value, document from canary_value where id in (?) order by id', [ids]);
  expect(stored.map((r) => r.text_value)).toEqual(TEXTS);
  expect(stored.map((r) => Number(r.number_value))).toEqual(sent.map((v) => v.number));
  expect(stored.map((r) => (r.big_value === null ? null : Number(r.big_value)))).toEqual(sent.map((v) => v.big));
  for (const row of stored) expect(typeof row.document === 'string' ? JSON.parse(row.document) : row.document).toEqual(DOCUMENT);
  // The last statement's nulls too.
  const [last] = await forkEm(t.app.services.orm).execute<Record<string, unknown>[]>(
    'select text_value, number_value, big_value, document from canary_value where id > ? order by id limit 1',
    [Math.max(...ids)],
  );
  expect(last).toEqual({ text_value: null, number_value: null, big_value: null, document: null });
});

test('a failure after the first statement rolls the transaction back, and the connection serves the next one', async () => {
  const marker = `rolled back ${Date.now()}`;
  const attempt = inStatementTransaction(
    forkEm(t.app.services.orm),
    { sql: 'insert into canary_value (text_value) values (?)', params: [marker] },
    async () => {
      throw new Error('the decision failed');
    },
  );
  await expect(attempt).rejects.toThrow('the decision failed');
  // A failing last statement rolls back too (its COMMIT, sent with it, does not run).
  const failing = inStatementTransaction(
    forkEm(t.app.services.orm),
    { sql: 'insert into canary_value (text_value) values (?)', params: [marker] },
    async () => ({ value: undefined, last: { sql: 'insert into no_such_table values (?)', params: [1] } }),
  );
  await expect(failing).rejects.toThrow();
  const rows = await forkEm(t.app.services.orm).execute('select 1 from canary_value where text_value = ?', [marker]);
  expect(rows).toHaveLength(0);
});
