import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MERCHANT_A, MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { collectPageErrors, launchBrowser, screenshot } from './support/browser.js';
import { feedRow, openDashboard } from './support/dashboard-page.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { eventually } from '../support/subscriber.js';

let t: TestApp;
let merchant: MerchantClient;
let browser: Browser;
let ops: BrowserContext;
let dashboard: Page;
let errors: string[];
/** Every URL the dashboard asked for (documents, assets, fetches, the graphql-ws socket). */
const requested: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  browser = await launchBrowser();
  ops = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  ops.setDefaultTimeout(CONDITION_DEADLINE_MS);
  dashboard = await ops.newPage();
  errors = collectPageErrors(dashboard);
  dashboard.on('request', (request) => requested.push(request.url()));
  dashboard.on('websocket', (socket) => requested.push(socket.url()));
  await openDashboard(dashboard, t.baseUrl);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

afterEach(() => {
  expect(errors.splice(0)).toEqual([]);
});

async function createPayment(overrides: Record<string, unknown> = {}): Promise<{ reference: string; redirectUrl: string }> {
  const reference = newReference('dash');
  const res = await merchant.createPayment({ reference, ...overrides });
  expect(res.status).toBe(201);
  return { reference, redirectUrl: res.body.redirectUrl };
}

test('a payment created over REST appears in the live feed without a reload', async () => {
  const { reference } = await createPayment();
  await feedRow(dashboard, reference, 'CREATED').waitFor();
  await expect(feedRow(dashboard, reference).first().getAttribute('data-state')).resolves.toBe('CREATED');
  await screenshot(dashboard, 'dashboard-live');
});

test('approving on the landing page in another browser context changes the state on the dashboard', async () => {
  const { reference, redirectUrl } = await createPayment();
  await feedRow(dashboard, reference, 'CREATED').waitFor();
  const authorizedBefore = Number(await dashboard.getByTestId('total-RESERVED').textContent());

  const wallet = await browser.newContext({ viewport: { width: 390, height: 844 } });
  wallet.setDefaultTimeout(CONDITION_DEADLINE_MS);
  const user = await wallet.newPage();
  await user.goto(redirectUrl);
  await user.getByLabel('Your phone number (test user)').fill('91234567');
  await user.getByRole('button', { name: 'Approve' }).click();
  await user.waitForLoadState();
  await screenshot(user, 'wallet-approved');
  await user.getByText('Status: Approved').waitFor();
  await wallet.close();

  await feedRow(dashboard, reference, 'AUTHORIZED').waitFor();
  await dashboard
    .locator(`[data-testid="feed-row"][data-reference="${reference}"][data-state="AUTHORIZED"][data-event="CREATED"]`)
    .waitFor();
  await dashboard
    .getByTestId('total-RESERVED')
    .filter({ hasText: String(authorizedBefore + 1) })
    .waitFor();
});

test('capture and refund over REST update the totals of today', async () => {
  const reference = await merchant.authorizedPayment(10_000, { reference: newReference('dash') });
  await feedRow(dashboard, reference, 'AUTHORIZED').waitFor();
  const captured = await dashboard.getByTestId('captured-today').textContent();
  expect((await merchant.modify(reference, 'capture', 6_000)).status).toBe(200);
  await feedRow(dashboard, reference, 'CAPTURED').waitFor();
  expect(captured).toMatch(/^kr\s0,00$/);
  await dashboard
    .getByTestId('captured-today')
    .filter({ hasText: /^kr\s60,00$/ })
    .waitFor();
  expect((await merchant.modify(reference, 'refund', 2_500)).status).toBe(200);
  await feedRow(dashboard, reference, 'REFUNDED').waitFor();
  await dashboard
    .getByTestId('refunded-today')
    .filter({ hasText: /^kr\s25,00$/ })
    .waitFor();
  await screenshot(dashboard, 'dashboard-totals');
});

test('the feed filters by event name and reference', async () => {
  const { reference } = await createPayment();
  await feedRow(dashboard, reference, 'CREATED').waitFor();
  await dashboard.getByTestId('filter-reference').fill(reference);
  await dashboard.getByTestId('filter-event').selectOption('CAPTURED');
  await feedRow(dashboard, reference).waitFor({ state: 'detached' });
  await dashboard.getByTestId('filter-event').selectOption('');
  await feedRow(dashboard, reference, 'CREATED').waitFor();
  expect(await dashboard.getByTestId('feed-row').count()).toBe(1);
  await dashboard.getByTestId('filter-reference').fill('');
});

test('a feed whose subscription fails follows again after the newest event it holds, and loses none', async () => {
  const page = await ops.newPage();
  const pageErrors = collectPageErrors(page);
  // Between the page and the service: the first event the feed subscription brings is replaced by an error for
  // that subscription (as when the service fails an event), and the service is told the subscription is complete.
  let failed: string | undefined;
  await page.routeWebSocket(/\/graphql$/, (socket) => {
    const server = socket.connectToServer();
    server.onMessage((message) => {
      const frame = JSON.parse(String(message)) as { id?: string; type: string; payload?: { data?: Record<string, unknown> } };
      if (failed === undefined && frame.type === 'next' && frame.payload?.data?.paymentEvents) {
        failed = (frame.payload.data.paymentEvents as { payment: { reference: string } }).payment.reference;
        socket.send(JSON.stringify({ id: frame.id, type: 'error', payload: [{ message: 'The event could not be read' }] }));
        server.send(JSON.stringify({ id: frame.id, type: 'complete' }));
        return;
      }
      socket.send(message);
    });
  });
  await openDashboard(page, t.baseUrl);
  const first = await createPayment();
  await eventually(() => failed === first.reference, 'the first event to be replaced by an error');
  // The event the error replaced comes with the feed's next subscription, and so does everything after it.
  const second = await createPayment();
  await feedRow(page, first.reference, 'CREATED').waitFor();
  await feedRow(page, second.reference, 'CREATED').waitFor();
  expect(await feedRow(page, first.reference, 'CREATED').count()).toBe(1);
  await page.close();
  expect(pageErrors).toEqual([]);
});

test("redeliver on a payment's page produces a new attempt", async () => {
  // Nothing listens on port 9: every attempt fails, and the retry is not due before the test's clock moves.
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
    url: 'http://127.0.0.1:9/hook',
    events: ['epayments.payment.created.v1'],
  });
  expect(registered.status).toBe(201);
  const { reference } = await createPayment({
    paymentDescription: '<script>window.pwned = 1</script>',
    receipt: {
      orderLines: [
        { name: 'Wool socks', id: 'sku-1', totalAmount: 10_000, totalAmountExcludingTax: 8_000, totalTaxAmount: 2_000, taxPercentage: 25 },
      ],
      bottomLine: { currency: 'NOK', totalAmount: 10_000 },
    },
  });
  // issue 9: the order's category (order management) shows beside its receipt.
  const category = { category: 'TICKET', orderDetailsUrl: 'https://shop.example/tickets/1' };
  expect((await merchant.request('PUT', `/order-management/v2/ecom/categories/${reference}`, category)).status).toBe(200);
  await feedRow(dashboard, reference, 'CREATED').getByRole('link', { name: reference }).click();
  await dashboard.getByTestId('payment-reference').filter({ hasText: reference }).waitFor();
  await dashboard
    .getByTestId('order-category')
    .getByText(/TICKET/)
    .waitFor();
  // Merchant text is text: the description shows as written and runs nothing.
  await dashboard.getByText('<script>window.pwned = 1</script>').waitFor();
  expect(await dashboard.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  await dashboard.getByTestId('order').getByText('Wool socks').waitFor();

  const attempts = dashboard.getByTestId('attempt');
  await dashboard.getByTestId('delivery').first().waitFor();
  await attempts.first().waitFor();
  const before = await attempts.count();
  await dashboard.getByRole('button', { name: 'Redeliver' }).click();
  await attempts.nth(before).waitFor();
  await screenshot(dashboard, 'dashboard-payment');

  await dashboard.getByRole('link', { name: 'Webhooks' }).click();
  await dashboard.getByTestId('failure-rate').filter({ hasText: '100.0 %' }).waitFor();
  await screenshot(dashboard, 'dashboard-webhooks');
});

test("an Express payment's page shows the shipping the user chose: address, option and cost", async () => {
  const flatRate = { id: 'flat_rate:1', name: 'Flat rate', amount: { currency: 'NOK', value: 4_900 } };
  const { reference, redirectUrl } = await createPayment({
    userFlow: 'WEB_REDIRECT',
    returnUrl: 'https://shop.example/return',
    profile: { scope: 'name email phoneNumber address' },
    shipping: { fixedOptions: [{ brand: 'POSTEN', type: 'HOME_DELIVERY', isDefault: true, options: [flatRate] }] },
  });
  // The landing page's approval, as its form posts it: Kari's second address and the flat rate.
  const approved = await fetch(`${t.baseUrl}/wallet/landing/approve?token=${new URL(redirectUrl).searchParams.get('token')}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.baseUrl },
    body: new URLSearchParams({ phoneNumber: '91234567', consent: 'yes', address: '1', shippingOptionId: 'flat_rate:1' }).toString(),
  });
  expect(approved.status).toBe(200);
  await dashboard.evaluate(`location.hash = ${JSON.stringify(`#/payments/${encodeURIComponent(reference)}`)}`);
  await dashboard.getByTestId('payment-reference').filter({ hasText: reference }).waitFor();
  const shipping = dashboard.getByTestId('shipping');
  await shipping.waitFor();
  expect((await shipping.innerText()).replace(/\s+/g, ' ')).toBe(
    'Shipping Flat rate · kr 49,00 · option flat_rate:1 Dronning Eufemias gate 16 0191 Oslo, NO',
  );
});

// Runs last: by now the dashboard has signed in, followed the feed and opened a payment's page.
test('no credential in any URL the dashboard built, and the secret is in no storage', async () => {
  expect(requested.some((url) => url.startsWith('ws://'))).toBe(true);
  const token = await new MerchantClient(t.baseUrl).accessToken();
  const [tokenHeader] = token.split('.');
  for (const url of requested) {
    const decoded = decodeURIComponent(url);
    for (const credential of [MERCHANT_A.clientSecret, MERCHANT_A.subscriptionKey, tokenHeader!]) expect(decoded).not.toContain(credential);
  }
  const stored = await dashboard.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  expect(stored).not.toContain(MERCHANT_A.clientSecret);
});
