import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate, migrationsDigest } from './migrated-schema.js';
import { emptyPgliteDump, writeMigratedPgliteDump } from './pglite-dump.js';

/**
 * A database of its own for one test file: in-memory PGlite by default, or a fresh database on the PostgreSQL
 * server named by DATABASE_URL (dropped afterwards), so test files never see each other's rows.
 */
export interface TestDatabase {
  databaseUrl: string | undefined;
  dataDir: string;
  /** PGlite only: what a new database starts from (openDatabase's `pglite`), when it is not a new cluster. */
  pglite?: { loadDataDir: Blob };
  drop(): Promise<void>;
}

export const onPostgres = Boolean(process.env.DATABASE_URL);

/**
 * Empty unless `migrated`: a migrated database on PostgreSQL is a copy of a template migrated once per set of
 * migrations (about 50 ms against 400-600 ms for running every migration on each test app's database). On PGlite the
 * test app starts from its dump instead (pglite-dump.ts), so there `migrated` changes nothing here, unless `inDirectory`
 * asks for a data directory of its own, written from the dump: for a second instance on the same data, or a service
 * run as a process (`DATA_DIR`), which then opens it instead of making a cluster and migrating it (a process's start
 * took 11.6 s of CPU so, 4.3 s from the directory).
 */
export async function createTestDatabase(options: { migrated?: boolean; inDirectory?: boolean } = {}): Promise<TestDatabase> {
  const declared = process.env.PAYGRAPH_DATABASE_FREE_FILE;
  if (declared) {
    throw new Error(`${declared} declares @database-free (CI runs it in one pass only), yet makes a test database`);
  }
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl && options.migrated && options.inDirectory) {
    const dataDir = await mkdtemp(join(tmpdir(), 'paygraph-data-'));
    await writeMigratedPgliteDump(dataDir);
    return { databaseUrl: undefined, dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }
  if (!serverUrl && options.migrated) return { databaseUrl: undefined, dataDir: 'memory://', drop: async () => undefined };
  // Not migrated: on PGlite a copy of a new cluster made once (pglite-dump.ts), not a cluster made again.
  if (!serverUrl) {
    return { databaseUrl: undefined, dataDir: 'memory://', pglite: { loadDataDir: await emptyPgliteDump() }, drop: async () => undefined };
  }
  const name = `paygraph_test_${randomBytes(6).toString('hex')}`;
  const template = options.migrated ? ` template ${await migratedTemplate(serverUrl)}` : '';
  await admin(serverUrl, `create database ${name}${template}`);
  return {
    databaseUrl: databaseUrl(serverUrl, name),
    dataDir: 'memory://',
    drop: async () => void (await admin(serverUrl, `drop database if exists ${name} with (force)`)),
  };
}

/**
 * The template's name; made when missing. Workers that race to make it each migrate a database of their own and
 * rename it into place: the first rename wins, the others drop theirs. Nothing connects to the template once it is
 * named, so copying it never waits. Templates of other sets of migrations stay on the server (each one is the size of
 * an empty database): a run of another checkout on the same server may be copying one.
 */
async function migratedTemplate(serverUrl: string): Promise<string> {
  const template = `paygraph_template_${migrationsDigest([])}`;
  if (await exists(serverUrl, template)) return template;
  const partial = `paygraph_partial_${randomBytes(6).toString('hex')}`;
  await admin(serverUrl, `create database ${partial}`);
  try {
    await migrate({ databaseUrl: databaseUrl(serverUrl, partial), dataDir: 'memory://' });
    await admin(serverUrl, `alter database ${partial} rename to ${template}`);
  } catch (error) {
    await admin(serverUrl, `drop database if exists ${partial} with (force)`);
    if (!(await exists(serverUrl, template))) throw error;
  }
  return template;
}

async function exists(serverUrl: string, name: string): Promise<boolean> {
  return (await admin(serverUrl, 'select 1 from pg_database where datname = $1', [name])).rowCount === 1;
}

/** The URL of database `name` on the server `serverUrl` names. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** One statement on its own connection to the server (or database) the URL names. */
export async function admin(serverUrl: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}
