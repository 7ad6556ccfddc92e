import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/platform/clock.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { onPostgres } from '../support/test-database.js';
import { collectPageErrors, launchBrowser, screenshot } from './support/browser.js';
import { feedRow, openDashboard } from './support/dashboard-page.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

/**
 * The dashboard outlives its server: the socket reconnects by itself, and what was committed while it was away shows
 * in the feed (the subscription resumes after the newest event the page holds), without a reload. The database outlives the server too: a PGlite directory
 * of this test's own, or the PostgreSQL database of the first instance.
 */
let first: TestApp;
let browser: Browser;
let dataDir: string;
const later: App[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'paygraph-restart-'));
  first = await startTestApp(onPostgres ? {} : { dataDir });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const app of later) await app.close().catch(() => undefined);
  // The first instance is closed already; on PostgreSQL its database is dropped here.
  const url = first?.app.services.config.databaseUrl;
  if (onPostgres && url) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
    await client.end();
  }
  await rm(dataDir, { recursive: true, force: true });
});

/** Another instance on the same database, listening on `port` (0: any). */
async function restart(port: number): Promise<{ app: App; baseUrl: string }> {
  const config = {
    ...loadConfig({ PAYGRAPH_LOG_REQUESTS: 'false' }),
    databaseUrl: first.app.services.config.databaseUrl,
    dataDir,
    jobIntervalMs: 25,
  };
  const app = await createApp(config, { clock: new ManualClock(new Date()) });
  later.push(app);
  const bound = await app.listen(port);
  const baseUrl = `http://127.0.0.1:${bound}`;
  app.services.config.publicUrl = baseUrl;
  return { app, baseUrl };
}

test('after a server restart the feed reconnects and catches up on what it missed', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(CONDITION_DEADLINE_MS);
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  await openDashboard(page, first.baseUrl);
  const port = Number(new URL(first.baseUrl).port);
  // issue 22: an event the page holds, so the subscription resumes after it (not from the history).
  const seen = newReference('seen');
  expect((await new MerchantClient(first.baseUrl).createPayment({ reference: seen })).status).toBe(201);
  await feedRow(page, seen, 'CREATED').waitFor();

  await first.app.close();
  await page.getByTestId('connection').filter({ hasText: 'Reconnecting' }).waitFor();

  // A payment created while the dashboard's server is down, through another instance on the same database.
  const other = await restart(0);
  const missed = newReference('missed');
  expect((await new MerchantClient(other.baseUrl).createPayment({ reference: missed })).status).toBe(201);
  await other.app.close();

  const back = await restart(port);
  await page.getByTestId('connection').filter({ hasText: 'Live' }).waitFor();
  await feedRow(page, missed, 'CREATED').waitFor();
  // And the live feed runs again.
  const after = newReference('after');
  expect((await new MerchantClient(back.baseUrl).createPayment({ reference: after })).status).toBe(201);
  await feedRow(page, after, 'CREATED').waitFor();
  // Each once: the replay skipped what the page held, and the live stream what the replay gave.
  for (const reference of [seen, missed, after]) expect(await feedRow(page, reference).count()).toBe(1);
  await screenshot(page, 'dashboard-after-restart');
  await context.close();
  // While the server was down the page's socket and requests failed, as they should; nothing else may have.
  expect(errors.filter((e) => !/ERR_CONNECTION_REFUSED|WebSocket/.test(e))).toEqual([]);
}, 120_000);
