import type { EntityManager as CoreEntityManager, Logger, LoggerNamespace } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgresMikroORM } from '@mikro-orm/postgresql';
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
   * The embedded in-memory PGlite only: start from a dump of a database (`loadDataDir`) or use a given instance
   * (`pglite`). Tests start from a dump of a migrated database: a new cluster plus every migration costs seconds
   * per app, loading the dump about one.
   */
  pglite?: { loadDataDir: Blob } | { pglite: object };
}

/** Opens the database (PostgreSQL when a URL is given, else PGlite) and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<Orm> {
  const common = commonOptions(options);
  const orm = options.databaseUrl
    ? await PostgresMikroORM.init({ ...common, clientUrl: options.databaseUrl, pool: { min: 0, max: 20 } })
    : await PgliteMikroORM.init({
        ...common,
        ...(options.dataDir === 'memory://'
          ? { ...(options.pglite ? { driverOptions: options.pglite } : {}) }
          : { dbName: options.dataDir }),
      });
  await orm.migrator.up(options.migrateTo ? { to: options.migrateTo } : undefined);
  return orm;
}

/**
 * A pool of a few connections of its own for the background lane (the outbox fan-out and the deliveries). Measured
 * under load (bench/README.md, webhook throughput): requests kept all 20 connections of the main pool busy with 47
 * to 63 more waiting, and each claim and record of a delivery queued behind them, so deliveries drained at a tenth of
 * the offered rate. PGlite is one connection in one process: there the lane is the database itself.
 */
export async function openBackgroundLane(orm: Orm, options: DatabaseOptions, size: number): Promise<Orm> {
  if (!options.databaseUrl) return orm;
  return PostgresMikroORM.init({ ...commonOptions(options), clientUrl: options.databaseUrl, pool: { min: 0, max: size } });
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
