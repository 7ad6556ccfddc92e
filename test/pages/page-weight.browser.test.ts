import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { ARTIFACTS, launchBrowser } from './support/browser.js';
import { feedRow, openDashboard } from './support/dashboard-page.js';

/**
 * The dashboard's first load, in bytes on the wire (compressed), and how long an event created after load takes to
 * show in the live feed. The figures go to test-artifacts/page-weight.json (bench/README.md quotes them); only the
 * weight has a limit here, no time is asserted.
 */
let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const FEED_SAMPLES = 7;
const TARGET_BYTES = 300 * 1024;

test('the first load of the dashboard stays under 300 KB compressed; feed latency is recorded', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const bytesByRequest = new Map<string, number>();
  cdp.on('Network.loadingFinished', (event) => bytesByRequest.set(event.requestId, event.encodedDataLength));
  cdp.on('Network.webSocketFrameReceived', (event) =>
    bytesByRequest.set(`${event.requestId}:${event.timestamp}`, event.response.payloadData.length),
  );
  await openDashboard(page, t.baseUrl);
  await page.getByTestId('total-PENDING').filter({ hasText: /^\d+$/ }).waitFor();
  const firstLoadBytes = [...bytesByRequest.values()].reduce((a, b) => a + b, 0);
  expect(firstLoadBytes).toBeLessThan(TARGET_BYTES);

  const merchant = new MerchantClient(t.baseUrl);
  await merchant.accessToken();
  const latencies: number[] = [];
  for (let i = 0; i < FEED_SAMPLES; i++) {
    const reference = newReference('weight');
    const started = performance.now();
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    await feedRow(page, reference, 'CREATED').waitFor();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  const figures = {
    measuredAt: new Date().toISOString(),
    firstLoadBytes,
    firstLoadKiB: Math.round(firstLoadBytes / 102.4) / 10,
    feedLatencyMs: { median: Math.round(latencies[Math.floor(latencies.length / 2)]!), max: Math.round(latencies[latencies.length - 1]!) },
  };
  await mkdir(ARTIFACTS, { recursive: true });
  await writeFile(join(ARTIFACTS, 'page-weight.json'), `${JSON.stringify(figures, null, 2)}\n`);
  await context.close();
});
