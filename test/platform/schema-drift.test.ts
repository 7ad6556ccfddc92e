import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { EntityMetadata } from '@mikro-orm/core';
import { modules } from '../../src/modules.js';
import type { DomainModule } from '../../src/platform/module.js';
import type { Orm } from '../../src/platform/db/orm.js';
import { openMigratedDatabase } from '../support/migrated-schema.js';
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
    orm = await openMigratedDatabase(database);
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

  test("a module's migrations change only its own tables, except those applied before each module owned its tables", async () => {
    const owners = await tableOwners(orm);
    const wrong: string[] = [];
    for (const module of modules) {
      for (const entry of module.migrations ?? []) {
        if (ownedBefore.has(entry.name)) continue;
        for (const table of await tablesChangedBy(orm, entry)) {
          if (movedOut.get(table)?.by.includes(entry.name)) continue;
          const owner = owners.get(table);
          if (owner !== module.name) wrong.push(`${module.name}: ${entry.name} changes ${table}, which is ${owner ?? 'no module'}'s`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  test("no platform code writes a domain's table by raw SQL", async () => {
    const owners = await tableOwners(orm);
    const root = resolve(import.meta.dirname, '../..');
    const writes = platformSources(join(root, 'src/platform')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(WRITE)]
        .map((m) => m[1]!.toLowerCase())
        .filter((table) => owners.has(table) && owners.get(table) !== 'platform')
        .map((table) => `${relative(root, file)} writes ${table}`),
    );
    // The outbox dispatcher's fan-out writes the platform's own generic deliveries (kind `webhook`).
    expect([...new Set(writes)].sort()).toEqual([]);
  });
});

/**
 * Migrations applied before each module owned its tables. The platform's first ones created the early domains'
 * tables (payments, webhooks, merchants, the wallet's test users), and some domains' first ones extended another's
 * table (the operator's the platform's API clients, user profiles the test users, management the partners, PSP
 * signup the merchants); applied migrations are never edited, so they stay where they are. Every later migration lives in the
 * folder of the module that owns the tables it changes, and that module's manifest lists it.
 */
const ownedBefore = new Set([
  'Migration20261122000001Foundation',
  'Migration20261122000002Webhooks',
  'Migration20261122000003PaymentEventNotify',
  'Migration20261123000004WebhookAttemptAtClaim',
  'Migration20261123000005DomainEventStream',
  'Migration20261123000007Principals',
  'Migration20261123120000UserProfiles',
  'Migration20261123161001PspSignup',
  'Migration20261123161201Management',
  'Migration20261126100000SecretRotation',
  'Migration20261126110000OperatorClient',
]);

/**
 * Tables another module's migration took into its own: their last owner, and those migrations, the ones of another
 * module allowed to change them. The webhooks module's deliveries and attempts moved into the platform's generic
 * delivery tables, which every kind of delivery shares (callbacks moved there from the platform's own). The wallet
 * renamed the platform's `test_user` to its own `wallet_user`, kept the old name as a view for the release before, and
 * dropped the view a release later.
 */
const movedOut = new Map<string, { owner: string; by: readonly string[] }>([
  ['webhook_delivery', { owner: 'webhooks', by: ['Migration20261126180000Deliveries'] }],
  ['webhook_delivery_attempt', { owner: 'webhooks', by: ['Migration20261126180000Deliveries'] }],
  ['test_user', { owner: 'platform', by: ['Migration20261205060000WalletUser', 'Migration20261206000000WalletUserContract'] }],
]);

/**
 * Which module owns each table: the module whose entity maps it, else the module whose migration created it (the
 * platform's early migrations created tables no entity maps: the payments' event view reads the outbox), and a
 * dropped table its last owner.
 */
async function tableOwners(orm: Orm): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  for (const module of modules) {
    for (const entity of module.entities ?? []) owners.set(orm.getMetadata().find(entity as never)!.tableName, module.name);
  }
  for (const module of modules) {
    for (const entry of module.migrations ?? []) {
      for (const table of await tablesCreatedBy(orm, entry)) if (!owners.has(table)) owners.set(table, module.name);
    }
  }
  owners.set('payment_event', 'payments');
  for (const [table, { owner }] of movedOut) owners.set(table, owner);
  return owners;
}

type MigrationEntry = NonNullable<DomainModule['migrations']>[number];

async function sqlOf(orm: Orm, entry: MigrationEntry): Promise<string[]> {
  // Both databases' drivers are the SQL driver a migration takes; the ORM's type names only the generic driver.
  const driver = orm.em.getDriver() as ConstructorParameters<MigrationEntry['class']>[0];
  const migration = new entry.class(driver, orm.config);
  await migration.up();
  return migration.getQueries().map((sql) => String(sql).toLowerCase().replace(/--.*$/gm, ''));
}

const CREATE = /\bcreate\s+(?:or\s+replace\s+)?(?:table|view)\s+(?:if\s+not\s+exists\s+)?"?(\w+)/g;
const CHANGE = [
  CREATE,
  /\balter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?"?(\w+)/g,
  /\bdrop\s+(?:table|view)\s+(?:if\s+exists\s+)?"?(\w+)/g,
  /\bcreate\s+(?:unique\s+)?index\s+(?:concurrently\s+)?(?:if\s+not\s+exists\s+)?(?:\w+\s+)?on\s+(?:only\s+)?"?(\w+)/g,
  /\bcreate\s+(?:or\s+replace\s+)?trigger\s+\w+\s+(?:before|after|instead\s+of)\s+[\w\s]+?\s+on\s+"?(\w+)/g,
  /\binsert\s+into\s+"?(\w+)/g,
  /\bupdate\s+"?(\w+)"?\s+(?:\w+\s+)?set\b/g,
  /\bdelete\s+from\s+"?(\w+)/g,
];
const WRITE = /\b(?:insert\s+into|update|delete\s+from)\s+"?(\w+)"?\s+(?:\(|set\b|where\b|\w+\s+set\b|select\b|values\b|as\b|using\b)/gi;

/** A table renamed is created under its new name by the migration that renames it (an expand step keeps the old rows). */
const RENAME = /\balter\s+table\s+(?:if\s+exists\s+)?"?\w+"?\s+rename\s+to\s+"?(\w+)/g;

async function tablesCreatedBy(orm: Orm, entry: MigrationEntry): Promise<string[]> {
  return (await sqlOf(orm, entry)).flatMap((sql) => [...sql.matchAll(CREATE), ...sql.matchAll(RENAME)].map((m) => m[1]!));
}

async function tablesChangedBy(orm: Orm, entry: MigrationEntry): Promise<Set<string>> {
  const statements = await sqlOf(orm, entry);
  return new Set(statements.flatMap((sql) => CHANGE.flatMap((pattern) => [...sql.matchAll(pattern)].map((m) => m[1]!))));
}

function platformSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : platformSources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
