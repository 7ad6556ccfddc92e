import type { EntityMetadata } from '@mikro-orm/core';
import { modules } from '../../src/modules.js';
import { openDatabase, type Orm } from '../../src/platform/db/orm.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

/**
 * The committed migrations and the entity definitions describe one schema. A migration that forgets a column an
 * entity maps, or an entity that drifts from what the migrations create, fails here (and so in CI) rather than at
 * the first query that touches it.
 */
describe('entities and migrations', () => {
  let database: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({
      databaseUrl: database.databaseUrl,
      dataDir: database.dataDir,
      entities: modules.flatMap((m) => m.entities ?? []),
      migrations: modules.flatMap((m) => m.migrations ?? []),
    });
  });

  afterAll(async () => {
    await orm.close(true);
    await database.drop();
  });

  test('every entity maps a table the migrations create, column for column', async () => {
    const columns = await orm.em
      .getConnection()
      .execute<{ table_name: string; column_name: string; is_nullable: string }[]>(
        `select table_name, column_name, is_nullable from information_schema.columns where table_schema = current_schema()`,
      );
    const database = new Map<string, Map<string, boolean>>();
    for (const c of columns) {
      if (!database.has(c.table_name)) database.set(c.table_name, new Map());
      database.get(c.table_name)!.set(c.column_name, c.is_nullable === 'YES');
    }
    const disagreements: string[] = [];
    const all: unknown = orm.getMetadata().getAll();
    const metas = (all instanceof Map ? [...all.values()] : Object.values(all as object)) as EntityMetadata[];
    const mappedEntities = modules.flatMap((m) => m.entities ?? []).length;
    expect(metas.filter((m) => !m.embeddable && !m.virtual).length).toBeGreaterThanOrEqual(mappedEntities);
    for (const meta of metas) {
      if (meta.embeddable || meta.virtual || !meta.tableName) continue;
      const table = database.get(meta.tableName);
      if (!table) {
        disagreements.push(`${meta.className}: table ${meta.tableName} is not created by any migration`);
        continue;
      }
      const mapped = new Set<string>();
      for (const prop of Object.values(meta.properties)) {
        for (const field of prop.fieldNames ?? []) {
          mapped.add(field);
          const nullable = table.get(field);
          if (nullable === undefined)
            disagreements.push(`${meta.className}.${prop.name}: column ${meta.tableName}.${field} does not exist`);
          else if (nullable && !prop.nullable && !prop.primary)
            disagreements.push(`${meta.className}.${prop.name}: ${meta.tableName}.${field} is nullable but the entity says it is required`);
        }
      }
      for (const [column, nullable] of table) {
        if (!mapped.has(column) && !nullable)
          disagreements.push(`${meta.tableName}.${column} is required but ${meta.className} does not map it`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
