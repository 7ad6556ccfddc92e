import { readFileSync } from 'node:fs';
import pg from 'pg';
import { MIGRATION_LOCK } from '../../src/platform/db/orm.js';
import { openBeforeMigration } from '../support/database-before-migration.js';
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

  test('the README’s indexes built concurrently before the upgrade are the ones its migrations build, which then keep them', async () => {
    const before = await openBeforeMigration('Migration99999999', LAST_BEFORE_THE_INDEXES);
    try {
      const url = before.db.databaseUrl!;
      for (const statement of readmeIndexStatements()) {
        const result = await admin(url, statement);
        // The closing check of the recipe: no index a failed concurrent build left invalid.
        if (/^select/i.test(statement)) expect(result.rows).toEqual([]);
      }
      await before.orm.migrator.up();
      const names = [...INDEXES];
      const definitions = async (databaseUrl: string) =>
        (
          await admin(
            databaseUrl,
            `select i.indexname, i.indexdef, x.indisvalid from pg_indexes i join pg_index x on x.indexrelid = (quote_ident(i.indexname))::regclass
              where i.schemaname = current_schema() and i.indexname = any($1) order by i.indexname`,
            [names],
          )
        ).rows;
      // The database migrated from empty in the first test holds each index as the start builds it.
      const built = await definitions(database.databaseUrl!);
      expect(built.map((row) => row.indexname)).toEqual(names.sort());
      expect(await definitions(url)).toEqual(built);
      expect((await admin(url, 'select count(*)::int as n from mikro_orm_migrations')).rows[0].n).toBe(
        (await admin(database.databaseUrl!, 'select count(*)::int as n from mikro_orm_migrations')).rows[0].n,
      );
    } finally {
      await before.orm.close(true);
      await before.db.drop();
    }
  });
});

/** The migration before the first that adds an index on a table that may be large (README, Indexes on a large table). */
const LAST_BEFORE_THE_INDEXES = 'Migration20261205040000DataLifecycle';
const INDEXES = [
  'payment_reference_prefix_idx',
  'delivery_claim_due_idx',
  'delivery_claim_leased_idx',
  'delivery_claim_order_idx',
  'delivery_attention_idx',
  'delivery_webhook_page_idx',
];

/** The statements of the README's `sql` block under "Indexes on a large table, before the upgrade", as written. */
function readmeIndexStatements(): string[] {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('**Indexes on a large table, before the upgrade.**'));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('the README has no sql block under "Indexes on a large table, before the upgrade"');
  const statements = block
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n')
    .split(';')
    .map((statement) => statement.trim())
    .filter(Boolean);
  for (const name of INDEXES) expect(statements.some((statement) => statement.includes(` ${name} on `))).toBe(true);
  return statements;
}

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
