import { modules } from '../../src/modules.js';
import { openDatabase, type Orm } from '../../src/platform/db/orm.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/**
 * A new test database taken up through the migrations up to `before`, its migrator knowing those up to `upTo`: a test
 * of a migration over existing data writes the data, then runs `orm.migrator.up({ to: upTo })`.
 */
export async function openBeforeMigration(upTo: string, before: string): Promise<{ db: TestDatabase; orm: Orm }> {
  const db = await createTestDatabase();
  const orm = await openDatabase({
    databaseUrl: db.databaseUrl,
    dataDir: db.dataDir,
    pglite: db.pglite,
    entities: modules.flatMap((m) => m.entities ?? []),
    migrations: modules.flatMap((m) => m.migrations ?? []).filter((m) => m.name <= upTo),
    migrateTo: before,
  });
  return { db, orm };
}
