import pg from 'pg';
import { MIGRATION_LOCK } from '../../src/platform/db/orm.js';
import { openMigratedDatabase } from '../support/migrated-schema.js';
import { eventually } from '../support/subscriber.js';
import { admin, createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';

/**
 * Several instances starting at once against one empty PostgreSQL database (a scale-out, a rolling upgrade): each
 * migration is applied once, and every instance starts. PGlite is one process with one connection, so only
 * PostgreSQL can have two migrators at the same time.
 */
(onPostgres ? describe : describe.skip)('migrations started by several instances at once', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  test('run once, under the database migration lock, and every instance opens the database', async () => {
    const instances = await Promise.allSettled([1, 2, 3].map(() => openMigratedDatabase(database)));
    await Promise.all(instances.map((opened) => (opened.status === 'fulfilled' ? opened.value.close() : undefined)));
    expect(instances.map((opened) => (opened.status === 'rejected' ? String(opened.reason) : 'opened'))).toEqual([
      'opened',
      'opened',
      'opened',
    ]);
    const applied = await admin(
      database.databaseUrl!,
      'select name, count(*)::int as times from mikro_orm_migrations group by name having count(*) <> 1',
    );
    expect(applied.rows).toEqual([]);
    const total = await admin(database.databaseUrl!, 'select count(*)::int as n from mikro_orm_migrations');
    expect(total.rows[0].n).toBeGreaterThan(10);
  });

  test('an instance that starts while another holds the migration lock waits for it, and migrates nothing meanwhile', async () => {
    const other = await createTestDatabase();
    // What an instance in the middle of migrating holds: the database's migration lock, on a session of its own.
    const holder = new pg.Client({ connectionString: other.databaseUrl });
    await holder.connect();
    try {
      await holder.query(`select pg_advisory_lock(${MIGRATION_LOCK}::bigint)`);
      let opened = false;
      const starting = openMigratedDatabase(other).then((orm) => ((opened = true), orm));
      // Condition, not time: the starting instance's request for the same lock is in pg_locks, not granted.
      await eventually(async () => (await waitingForMigrationLock(other.databaseUrl!)) === 1, 'the start to wait for the migration lock');
      expect(opened).toBe(false);
      expect((await admin(other.databaseUrl!, `select to_regclass('mikro_orm_migrations') as t`)).rows[0].t).toBeNull();
      await holder.query(`select pg_advisory_unlock(${MIGRATION_LOCK}::bigint)`);
      const orm = await starting;
      await orm.close();
      expect((await admin(other.databaseUrl!, 'select count(*)::int as n from mikro_orm_migrations')).rows[0].n).toBeGreaterThan(10);
    } finally {
      await holder.end();
      await other.drop();
    }
  });
});

/** Requests for the migration lock not granted yet; pg_locks shows a 64-bit advisory key as two 32-bit halves. */
async function waitingForMigrationLock(databaseUrl: string): Promise<number> {
  const waiting = await admin(
    databaseUrl,
    `select count(*)::int as n from pg_locks
      where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())
        and ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
    [MIGRATION_LOCK],
  );
  return waiting.rows[0].n;
}
