import type { Browser, Page } from 'playwright-core';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { collectPageErrors, launchBrowser, screenshot } from './support/browser.js';
import { seriousAxeViolations } from './support/axe.js';
import { openDashboard } from './support/dashboard-page.js';

/** issue 37 item 5: the dashboard's panel of payments that need attention, reached from its webhook page. */
let t: TestApp;
let merchant: MerchantClient;
let browser: Browser;
let dashboard: Page;
let errors: string[];

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(CONDITION_DEADLINE_MS);
  dashboard = await context.newPage();
  errors = collectPageErrors(dashboard);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test('a payment whose authorization webhook fails shows with its reason, and is redelivered from the panel', async () => {
  // Nothing listens on port 9: every attempt fails, and the retry is not due before the test's clock moves.
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
    url: 'http://127.0.0.1:9/orders',
    events: ['epayments.payment.authorized.v1'],
  });
  expect(registered.status).toBe(201);
  const reference = await merchant.authorizedPayment(12_300, { reference: newReference('attention') });
  const attempted = `query($id: ID!) { webhookDeliveries(webhookId: $id) { edges { node { attemptCount } } } }`;
  for (const deadline = Date.now() + CONDITION_DEADLINE_MS; ; await new Promise((r) => setTimeout(r, 25))) {
    const res = await merchant.graphql(attempted, { id: registered.body.id });
    if (res.body.data.webhookDeliveries.edges[0]?.node.attemptCount >= 1) break;
    if (Date.now() > deadline) throw new Error('the authorization webhook was never attempted');
  }
  const moved = await merchant.graphql('mutation { advanceTestClock(input: { seconds: 901 }) { userErrors { code } } }');
  expect(moved.body.data.advanceTestClock.userErrors).toEqual([]);

  await openDashboard(dashboard, t.baseUrl);
  await dashboard.getByRole('link', { name: 'Webhooks' }).click();
  await dashboard.getByTestId('attention-link').click();
  const row = dashboard.locator('[data-testid="attention-row"]').filter({ hasText: reference });
  await row.waitFor();
  expect(await row.getAttribute('data-reason')).toBe('AUTHORIZED_WEBHOOK_NOT_DELIVERED');
  await row.getByText('Authorization webhook not delivered').waitFor();
  await row.getByText('123,00').waitFor();
  expect(await seriousAxeViolations(dashboard)).toEqual([]);
  await screenshot(dashboard, 'dashboard-attention');

  await row.getByRole('button', { name: 'Redeliver' }).click();
  await dashboard.getByRole('status').filter({ hasText: 'Redelivery to http://127.0.0.1:9/orders scheduled.' }).waitFor();
  // Still failing (nothing listens), so the payment still needs attention after the redelivery.
  await row.waitFor();
  expect(errors).toEqual([]);
});
