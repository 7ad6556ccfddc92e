import pg from 'pg';
import { forkEm } from '../../src/platform/db/orm.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The service's sessions run without JIT compilation, whatever the database's own default says: on a large database
 * the estimates of its short statements pass `jit_above_cost`, and compiling each run of the deliverer's claim took
 * about a second (bench/README.md, the soak at ten million payments). PGlite has no JIT.
 */
const describeOnPostgres = onPostgres ? describe : describe.skip;

describeOnPostgres('session settings', () => {
  let first: TestApp;
  let second: TestApp | undefined;
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  test('a database whose default turns JIT on still serves the service with it off', async () => {
    first = await startTestApp();
    const databaseUrl = first.app.services.config.databaseUrl!;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      await admin.query(`alter database "${new URL(databaseUrl).pathname.slice(1)}" set jit = on`);
      // Sessions opened from now on take the database's default; the second instance opens its own.
      second = await startTestApp({ databaseUrl });
      const plain = new pg.Client({ connectionString: databaseUrl });
      await plain.connect();
      try {
        expect((await plain.query<{ jit: string }>('show jit')).rows).toEqual([{ jit: 'on' }]);
      } finally {
        await plain.end();
      }
      expect(await forkEm(second.app.services.orm).execute('show jit')).toEqual([{ jit: 'off' }]);
    } finally {
      await admin.end();
    }
  });
});
