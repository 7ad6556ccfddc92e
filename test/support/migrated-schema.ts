import { createHash } from 'node:crypto';
import { modules } from '../../src/modules.js';
import { openDatabase, type DatabaseOptions, type Orm } from '../../src/platform/db/orm.js';

/**
 * What a test database starts from when it starts migrated: every module's migrations, applied once per set of
 * migrations (their names and code, and `recipe`: how the copy is made) and copied for each test app, on PGlite as a
 * dump (pglite-dump.ts), on PostgreSQL as a template database (test-database.ts).
 */
export function migrationsDigest(recipe: readonly string[]): string {
  return createHash('sha256')
    .update(recipe.join('\n'))
    .update(
      migrations()
        .map((m) => `${m.name}\n${String(m.class)}`)
        .join('\n'),
    )
    .digest('hex')
    .slice(0, 16);
}

type DatabaseLocation = Pick<DatabaseOptions, 'databaseUrl' | 'dataDir' | 'pglite'>;

/** Opens the database the options name with every module's entities, applying every migration it lacks. */
export function openMigratedDatabase(database: DatabaseLocation): Promise<Orm> {
  return openDatabase({ ...database, entities: modules.flatMap((m) => m.entities ?? []), migrations: migrations() });
}

/** Applies every migration to the database the options name. */
export async function migrate(database: DatabaseLocation): Promise<void> {
  await (await openMigratedDatabase(database)).close();
}

function migrations() {
  return modules.flatMap((m) => m.migrations ?? []);
}
