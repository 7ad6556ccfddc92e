import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, type App, type AppOptions } from '../../src/app.js';
import { ManualClock } from '../../src/platform/clock.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { seedMerchants } from '../../src/merchants/merchants.seed.js';
import { seedTestUsers } from '../../src/wallet/wallet.seed.js';
import { loadConfig, type Config } from '../../src/config.js';
import { migratedPgliteDump } from './pglite-dump.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface TestApp {
  app: App;
  baseUrl: string;
  clock: ManualClock;
  /** Every SQL statement the app ran, for tests that count them. */
  queries: string[];
  close(): Promise<void>;
}

/**
 * The whole service on a free loopback port, with its own database and a clock the test moves. Given
 * `overrides.databaseUrl`, it joins that database instead (a second instance of another test app): it neither
 * creates nor drops one.
 */
export async function startTestApp(
  overrides: Partial<Config> = {},
  env: NodeJS.ProcessEnv = {},
  options: Pick<AppOptions, 'graphPlugins'> & {
    /** A fixed port (a restarted instance where clients reconnect); default any free one. */ port?: number;
  } = {},
): Promise<TestApp> {
  const database = overrides.databaseUrl ? sharedDatabase(overrides.databaseUrl) : await createTestDatabase({ migrated: true });
  const clock = new ManualClock(new Date());
  const queries: string[] = [];
  const config: Config = {
    // The database and public URL are the test app's own (set below), so production's refusal of the embedded
    // database and of http links is satisfied with stand-ins here.
    ...loadConfig({
      PAYGRAPH_LOG_REQUESTS: 'false',
      DATABASE_URL: 'postgres://set-by-the-test-app',
      PUBLIC_URL: 'https://set-by-the-test-app',
      ...env,
    }),
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    // The job interval stays production's (250 ms). Events and commits wake the jobs that deliver them; the tick only
    // finds time-based work. At 25 ms an idle app on PGlite spent 65-75% of a core on its ticks, inside the worker
    // that runs its tests (at 250 ms 15-17%), and ten busy test files took a quarter more CPU.
    ...overrides,
  };
  // On the embedded database, a fresh one (in memory, or a data directory without a database yet: a restart test's
  // first app) starts from the dump of a migrated one: no initdb, no migrations (seconds saved per app).
  const fresh = config.dataDir === 'memory://' || !existsSync(join(config.dataDir, 'PG_VERSION'));
  const pglite = !config.databaseUrl && fresh ? { loadDataDir: await migratedPgliteDump() } : undefined;
  const app = await createApp(
    { ...config, publicUrl: 'http://127.0.0.1:0' },
    { graphPlugins: options.graphPlugins, clock, pglite, onQuery: (sql) => queries.push(sql) },
  );
  const port = await app.listen(options.port ?? 0);
  const baseUrl = `http://127.0.0.1:${port}`;
  // The public URL is known only once the port is: links the service hands out must point at it.
  app.services.config.publicUrl = overrides.publicUrl ?? baseUrl;
  return {
    app,
    baseUrl,
    clock,
    queries,
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}

function sharedDatabase(databaseUrl: string): TestDatabase {
  return { databaseUrl, dataDir: 'memory://', drop: async () => undefined };
}

/** The service with production configuration; production seeds nothing, so the demo credentials are put in as set-up. */
export async function startProductionApp(overrides: Partial<Config> = {}, env: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  const app = await startTestApp(overrides, { ...env, PAYGRAPH_ENV: 'production', PAYGRAPH_TOKEN_SECRET: 'x'.repeat(40) });
  await seedMerchants(forkEm(app.app.services.orm), new Date());
  await seedTestUsers(forkEm(app.app.services.orm));
  return app;
}
