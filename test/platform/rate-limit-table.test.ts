import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { loadConfig, type Config } from '../../src/config.js';
import type { Orm } from '../../src/platform/db/orm.js';
import { RATE_LIMIT_APPLICATION_NAME, RequestLimiter } from '../../src/platform/rate-limit/request-limiter.js';
import { openMigratedDatabase } from '../support/migrated-schema.js';
import { admin, createTestDatabase, databaseUrl, onPostgres, type TestDatabase } from '../support/test-database.js';

/**
 * The shared rate-limit store's table comes from the platform's migrations, so no limiter runs DDL when an instance
 * starts: five limiters per instance used to create it at once, and concurrent creates collide on PostgreSQL (`type
 * "rate_limit" already exists`), failing the start.
 */
describe('the rate-limit table', () => {
  let database: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openMigratedDatabase(database);
  });

  afterAll(async () => {
    await orm?.close(true);
    await database?.drop();
  });

  test("is created by the migrations in the shape rate-limiter-flexible's own DDL gives it", async () => {
    // The library's statement, run under another name: the limiter reads and writes the table by that shape.
    const library = new RateLimiterPostgres({
      storeClient: new pg.Pool(),
      tableName: 'rate_limit_by_library',
      tableCreated: true,
      points: 1,
      duration: 1,
    });
    const ddl = (library as unknown as { _getCreateTableStmt(): string })._getCreateTableStmt();
    await orm.em.getConnection().execute(ddl);
    expect(await shapeOf(orm, 'rate_limit')).toEqual(await shapeOf(orm, 'rate_limit_by_library'));
    expect(await shapeOf(orm, 'rate_limit')).toContain('key character varying(255) not null primary key');
  });
});

/**
 * Instances that start together on a fresh database each build their limiters at once. Each round copies a freshly
 * migrated database (as a template: a copy costs a fraction of migrating), so every round starts from what the
 * migrations made and nothing a limiter made; concurrent creates collided in about one round in three.
 */
(onPostgres ? describe : describe.skip)('limiters of several instances started at once on a fresh database', () => {
  const serverUrl = process.env.DATABASE_URL!;
  let template: TestDatabase;

  beforeAll(async () => {
    template = await createTestDatabase();
    await (await openMigratedDatabase(template)).close(true);
  });

  afterAll(async () => {
    await template?.drop();
  });

  test('all build and count against one quota, round after round', async () => {
    const templateName = new URL(template.databaseUrl!).pathname.slice(1);
    for (let round = 0; round < 10; round++) {
      const name = `${templateName}_round_${round}`;
      await admin(serverUrl, `create database ${name} template ${templateName}`);
      const config: Config = {
        ...loadConfig({}),
        databaseUrl: databaseUrl(serverUrl, name),
        rateLimits: { ...loadConfig({}).rateLimits, client: { points: 4, windowSeconds: 60 }, store: 'postgres' },
      };
      try {
        // Five instances' limiters at once (25 of them, one per policy).
        const built = await Promise.allSettled(Array.from({ length: 5 }, async () => RequestLimiter.create(config)));
        const limiters = built.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
        try {
          expect(built.flatMap((outcome) => (outcome.status === 'rejected' ? [`round ${round}: ${String(outcome.reason)}`] : []))).toEqual(
            [],
          );
          const verdicts = [];
          for (const limiter of limiters) verdicts.push((await limiter.charge('client', 'one-client')).allowed);
          expect(verdicts).toEqual([true, true, true, true, false]);
        } finally {
          await Promise.all(limiters.map((limiter) => limiter.close()));
        }
      } finally {
        await admin(serverUrl, `drop database if exists ${name} with (force)`);
      }
    }
  });
});

/**
 * The server ending the shared store's idle connections (a restart, an operator's `pg_terminate_backend`, a database
 * dropped with force) must not end the instance: the pool reports it as an 'error' event, unhandled until the
 * limiter listened for it, which jest (like node) turned into a crash of the test.
 */
(onPostgres ? describe : describe.skip)('the shared store when the server ends its connections', () => {
  const serverUrl = process.env.DATABASE_URL!;
  let database: TestDatabase;
  let limiter: RequestLimiter;

  beforeAll(async () => {
    database = await createTestDatabase();
    await (await openMigratedDatabase(database)).close(true);
    limiter = RequestLimiter.create({
      ...loadConfig({}),
      databaseUrl: database.databaseUrl,
      rateLimits: { ...loadConfig({}).rateLimits, client: { points: 3, windowSeconds: 60 }, store: 'postgres' },
    });
  });

  afterAll(async () => {
    await limiter?.close();
    await database?.drop();
  });

  test('keeps counting on new connections after its idle ones are terminated', async () => {
    expect((await limiter.charge('client', 'one-client')).allowed).toBe(true);
    const name = new URL(database.databaseUrl!).pathname.slice(1);
    const terminated = await adminRows<{ pid: number }>(
      serverUrl,
      `with limiters as materialized (select pid from pg_stat_activity where datname = $1 and application_name = $2)
       select pid from limiters where pg_terminate_backend(pid)`,
      [name, RATE_LIMIT_APPLICATION_NAME],
    );
    expect(terminated.length).toBeGreaterThan(0);
    // Until the pool has seen its connections end, a charge may still pick a dead one (and count in memory): wait for
    // the server to be rid of them, then for a charge that the shared table counts.
    for (const { pid } of terminated) {
      while ((await adminRows(serverUrl, 'select 1 from pg_stat_activity where pid = $1', [pid])).length > 0) await pause(20);
    }
    await pause(100);
    expect((await limiter.charge('client', 'one-client')).allowed).toBe(true);
    const [row] = await adminRows<{ points: number }>(
      database.databaseUrl!,
      `select points from rate_limit where key = 'client:one-client'`,
    );
    expect(row?.points).toBe(2);
  });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function adminRows<Row>(url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  return (await admin(url, sql, params)).rows as Row[];
}

interface Column {
  column_name: string;
  type: string;
  is_nullable: string;
  column_default: string | null;
  primary: boolean;
}

/** Each column's name, type, nullability and default, and the primary key, in a comparable form. */
async function shapeOf(orm: Orm, table: string): Promise<string[]> {
  const columns = await orm.em.getConnection().execute<Column[]>(
    `select c.column_name, format_type(a.atttypid, a.atttypmod) as type, c.is_nullable, c.column_default,
            exists (select 1 from pg_index i where i.indrelid = a.attrelid and i.indisprimary and a.attnum = any (i.indkey)) as primary
       from information_schema.columns c
       join pg_attribute a on a.attrelid = c.table_name::regclass and a.attname = c.column_name
      where c.table_schema = current_schema() and c.table_name = ?
      order by c.ordinal_position`,
    [table],
  );
  const indexes = await orm.em
    .getConnection()
    .execute<{ count: number }[]>(`select count(*)::int as count from pg_index where indrelid = ?::regclass`, [table]);
  return [
    ...columns.map(
      (c: Column) =>
        `${c.column_name} ${c.type} ${c.is_nullable === 'YES' ? 'null' : 'not null'}${c.column_default ? ` default ${c.column_default}` : ''}${c.primary ? ' primary key' : ''}`,
    ),
    `${indexes[0]!.count} index(es)`,
  ];
}
