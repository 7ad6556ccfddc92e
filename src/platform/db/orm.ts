import { logError, logInfo } from '../../log.js';
import type { EntityManager as CoreEntityManager, Logger, LoggerNamespace } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { EntityManager } from '@mikro-orm/sql';
import type { EntityDefinition, MigrationEntry } from './schema-parts.js';

export type Orm = Awaited<ReturnType<typeof PostgresMikroORM.init>> | Awaited<ReturnType<typeof PgliteMikroORM.init>>;
export type Em = EntityManager;

export interface DatabaseOptions {
  /** PostgreSQL connection string; absent means the embedded PGlite. */
  databaseUrl?: string;
  /** PGlite data directory; `memory://` keeps the database in memory. */
  dataDir: string;
  /** Called with every SQL statement, for tests that count statements. */
  onQuery?: (sql: string) => void;
  /** Every module's entities. */
  entities: readonly EntityDefinition[];
  /** Every module's migrations; run in name order, which their timestamps make the order they were written. */
  migrations: readonly MigrationEntry[];
  /** Stops migrating after this migration (tests that migrate existing data); absent means every migration. */
  migrateTo?: string;
  /**
   * The embedded PGlite only: start from a dump of a database (`loadDataDir`; in memory, or in a data directory that
   * holds no database yet) or use a given instance (`pglite`, in memory). Tests start from a dump of a migrated
   * database: a new cluster plus every migration costs seconds per app, loading the dump about one.
   */
  pglite?: { loadDataDir: Blob } | { pglite: object };
}

/**
 * Settings of every session the service's pools open, sent with the connection's start (`options`, as `psql`'s
 * PGOPTIONS). JIT off: PostgreSQL compiles a statement whose estimated cost passes `jit_above_cost`, and on a large
 * database the estimates of the service's short statements pass it. Compiling then took about a second of the
 * server's CPU for each run of the deliverer's claim, whose execution takes 21 ms (10 million payments: the soak in
 * bench/README.md), so deliveries crawled and every statement waited behind a busy server. None of the service's
 * statements runs long enough to repay a compilation.
 */
const SESSION_OPTIONS = '-c jit=off';

/** What each pool of the service is opened with: the sessions' settings, and the handling of lost connections. */
const poolOptions = () => ({ onPoolCreated, options: SESSION_OPTIONS });

/** Opens the database (PostgreSQL when a URL is given, else PGlite) and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<Orm> {
  const common = commonOptions(options);
  const orm = options.databaseUrl
    ? await PostgresMikroORM.init({
        ...common,
        clientUrl: options.databaseUrl,
        pool: { min: 0, max: 20 },
        driverOptions: poolOptions(),
      })
    : await PgliteMikroORM.init({
        ...common,
        ...(options.dataDir === 'memory://' ? {} : { dbName: options.dataDir }),
        ...(options.pglite ? { driverOptions: options.pglite } : {}),
      });
  const migrate = () => migrateEach(orm, options.migrateTo);
  await (options.databaseUrl ? underMigrationLock(options.databaseUrl, migrate) : migrate());
  return orm;
}

/**
 * How long one statement of the start's migrations waits for a table lock. The old release serves while they run: a
 * migration's DDL waiting for a table's lock makes every request on that table queue behind it, and a migration
 * that upgrades its lock on a table a request is using deadlocks with it. Shorter than PostgreSQL's deadlock_timeout
 * (1 s), so when a migration and a request wait on each other the migration gives way (its transaction rolls back
 * and is run again), never the request.
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 500;
/** How many times a migration is run again after giving way to the traffic, before the start gives up. */
const MIGRATION_TRIES = 40;

/**
 * Every pending migration, each in a transaction of its own: a migration's DDL holds its tables' locks until its
 * transaction ends, so one transaction for all of them held every hot table (payments, deliveries, attempts) at once
 * while the old release kept writing, and the rolling upgrade deadlocked or starved on every try. Each migration
 * leaves a schema the release before serves (expand, then contract: README), so a start stopped between two
 * migrations leaves a database both releases serve, and the next start goes on from there.
 */
async function migrateEach(orm: Orm, to: string | undefined): Promise<void> {
  const pending = (await orm.migrator.getPending()).map((m) => m.name);
  const last = to ? pending.indexOf(to) : pending.length - 1;
  for (const name of pending.slice(0, last + 1)) await untilLocksGiven(() => migrateOne(orm, name));
}

async function migrateOne(orm: Orm, name: string): Promise<void> {
  const connection = orm.em.getConnection();
  await connection.transactional(async (trx) => {
    await connection.execute(`set local lock_timeout = ${MIGRATION_LOCK_TIMEOUT_MS}`, [], 'run', trx);
    await orm.migrator.up({ to: name, transaction: trx });
  });
}

/** A lock not given in time (55P03) or a deadlock (40P01): the migration rolled back whole, and is run again. */
async function untilLocksGiven(migrate: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrate();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if ((code !== '55P03' && code !== '40P01') || attempt >= MIGRATION_TRIES) throw error;
      logInfo('a migration gave way to the traffic on a table lock; running it again', { attempt, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * attempt, 2_000)));
    }
  }
}

/** A key no other advisory lock of this database uses: the bytes of "paygraph" read as one 64-bit number. */
export const MIGRATION_LOCK = '8097887090196443240';

/**
 * Instances that start at once (a rolling upgrade, a scale-out) migrate one after the other: each waits for the
 * database's migration lock, and the first to take it applies what is pending while the others then find nothing to
 * do. Without it two instances apply the same migration in two transactions and one fails on the other's table. The
 * lock is a session advisory lock on a connection of its own, held for the whole run of the migrator (which works on
 * the pool's connections) and given back when that connection ends, even if this process dies. PGlite is one process
 * with one connection: nothing else can migrate it at the same time.
 */
async function underMigrationLock(databaseUrl: string, migrate: () => Promise<unknown>): Promise<void> {
  const lock = new pg.Client({ connectionString: databaseUrl, application_name: 'paygraph migration lock' });
  await lock.connect();
  try {
    await lock.query(`select pg_advisory_lock(${MIGRATION_LOCK}::bigint)`);
    await migrate();
  } finally {
    await lock.end();
  }
}

/**
 * A pool of a few connections of its own for the background lane (the outbox fan-out and the deliveries). Measured
 * under load (bench/README.md, webhook throughput): requests kept all 20 connections of the main pool busy with 47
 * to 63 more waiting, and each claim and record of a delivery queued behind them, so deliveries drained at a tenth of
 * the offered rate. PGlite is one connection in one process: there the lane is the database itself.
 */
export async function openBackgroundLane(orm: Orm, options: DatabaseOptions, size: number): Promise<Orm> {
  if (!options.databaseUrl) return orm;
  return PostgresMikroORM.init({
    ...commonOptions(options),
    clientUrl: options.databaseUrl,
    pool: { min: 0, max: size },
    driverOptions: poolOptions(),
  });
}

/**
 * A connection the server ends (`pg_terminate_backend`, a restart, a failover) reports it as an `error` event on its
 * client after the query in flight has failed (that failure answers the request: 503). Without a listener of ours
 * that event reached no listener and was an uncaught exception, which ends the process.
 *
 * An idle client the pool discards itself. A checked-out one goes back to the pool here, as broken (so the pool ends
 * and drops it), and its holder's later release does nothing: the holder may never give it back. The ORM's query
 * builder (Kysely 0.29, kysely-org/kysely#1990) does not release a connection whose BEGIN, COMMIT or ROLLBACK failed,
 * and each such connection held one of the pool's places for good: the pool shrank with every connection the server
 * ended inside a transaction, and closing it waited forever for the lost ones.
 */
function onPoolCreated(pool: pg.Pool): void {
  const checkedOut = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  pool.on('connect', (client) =>
    client.on('error', (error) => {
      logError('database connection lost', error);
      if (!checkedOut.has(client)) return;
      const release = client.release;
      client.release = () => undefined;
      release.call(client, error);
    }),
  );
}

function commonOptions(options: DatabaseOptions) {
  const migrationsList = [...options.migrations].sort((a, b) => a.name.localeCompare(b.name));
  return {
    entities: [...options.entities],
    extensions: [Migrator],
    migrations: { migrationsList, snapshot: false, snapshotOnMigrate: false, transactional: true, allOrNothing: true, silent: true },
    discovery: { warnWhenNoEntities: false },
    allowGlobalContext: false,
    ...(options.onQuery ? queryLogging(options.onQuery) : {}),
  };
}

function queryLogging(onQuery: (sql: string) => void): { debug: LoggerNamespace[]; loggerFactory: () => Logger } {
  const logger: Logger = {
    log: (namespace, message) => {
      if (namespace === 'query') onQuery(message);
    },
    error: () => undefined,
    warn: () => undefined,
    // A statement run with logging off (`enabled: false`, the event bus's background reads) is no request's statement.
    logQuery: (context) => {
      if (context.enabled !== false) onQuery(context.query ?? '');
    },
    setDebugMode: () => undefined,
    isEnabled: (namespace) => namespace === 'query',
  };
  return { debug: ['query'], loggerFactory: () => logger };
}

export function forkEm(orm: Orm): Em {
  return (orm.em as unknown as CoreEntityManager).fork() as unknown as Em;
}
