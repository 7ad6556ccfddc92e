import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { newReference } from '../support/merchant-client.js';
import { PartnerClient } from '../support/partner-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { seriousAxeViolations } from '../pages/support/axe.js';
import { collectPageErrors, launchBrowser, screenshot } from '../pages/support/browser.js';
import { mgmt, orderBody } from '../management/management-support.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

/**
 * The end-to-end flow over real HTTP and a real browser: the partner pre-fills a product order, the merchant
 * opens the prefill page and submits it, a new sales unit appears (connected to the partner), takes a payment, and
 * its API quality shows the requests made for it.
 */
let t: TestApp;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test('pre-fill, submit on the page, a new unit takes a payment, and its API quality shows it', async () => {
  const partner = new PartnerClient(t.baseUrl);

  // 1. The partner pre-fills the order for Ny Kafé AS.
  const created = await mgmt(
    partner,
    'POST',
    '/product-orders',
    orderBody({ businessIdentifier: { scheme: 'business:NO:ORG', id: '920000037' }, salesUnitName: 'Ny Kafé Nettbutikk' }),
    { 'Idempotency-Key': randomUUID() },
  );
  expect(created.status).toBe(201);
  const { prefilledOrderId, prefillUrl } = created.body as { prefilledOrderId: string; prefillUrl: string };
  expect((await mgmt(partner, 'GET', `/product-orders/${prefilledOrderId}`)).body.prefillStatus).toBe('RECEIVED');

  // 2. The merchant opens the link, reviews what the partner filled in, and submits.
  const context = await browser.newContext();
  context.setDefaultTimeout(CONDITION_DEADLINE_MS);
  page = await context.newPage();
  errors = collectPageErrors(page);
  const url = new URL(prefillUrl);
  await page.goto(`${t.baseUrl}${url.pathname}${url.search}`);
  await page.getByRole('heading', { name: 'Check your product order' }).waitFor();
  await page.getByText('Ny Kafé Nettbutikk').waitFor();
  await page.getByText('920000037').waitFor();
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'prefill-review');
  await page.getByRole('button', { name: 'Submit order' }).click();
  await page.getByText('Order submitted.').waitFor();
  const msn = await page.locator('[data-msn]').getAttribute('data-msn');
  expect(msn).toMatch(/^\d{6}$/);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'prefill-submitted');
  await context.close();
  expect(errors).toEqual([]);

  // 3. The order is complete; the new unit is the merchant's, connected to the partner.
  expect((await mgmt(partner, 'GET', `/product-orders/${prefilledOrderId}`)).body.prefillStatus).toBe('COMPLETED');
  const forUnit = partner.forSalesUnit(msn!);
  expect((await mgmt(forUnit, 'GET', '/merchants/920000037/sales-units')).body).toEqual([msn]);
  const details = await mgmt(forUnit, 'GET', `/sales-units/${msn}`);
  expect(details.body).toEqual(
    expect.objectContaining({ msn, name: 'Ny Kafé Nettbutikk', configuration: expect.objectContaining({ paymentAllowed: true }) }),
  );

  // 4. It takes a payment: created by the partner for the unit, approved by the test user.
  const reference = newReference('onboarded');
  const payment = await forUnit.request(
    'POST',
    '/epayment/v1/payments',
    {
      amount: { currency: 'NOK', value: 4_900 },
      paymentMethod: { type: 'WALLET' },
      reference,
      userFlow: 'WEB_REDIRECT',
      returnUrl: 'https://nykafe.no/return',
      paymentDescription: 'Første kaffe',
    },
    { 'Idempotency-Key': randomUUID() },
  );
  expect(payment.status).toBe(201);
  expect(
    (await forUnit.request('POST', `/epayment/v1/test/payments/${reference}/approve`, { customer: { phoneNumber: '4791234567' } })).status,
  ).toBe(200);
  expect((await forUnit.request('GET', `/epayment/v1/payments/${reference}`)).body.state).toBe('AUTHORIZED');
  expect((await forUnit.request('GET', '/epayment/v1/payments/no-such-payment-here')).status).toBe(404);

  // 5. Its API quality shows those requests, per endpoint template, on REST and in the graph.
  const quality = await mgmt(forUnit, 'GET', `/api-quality/sales-units/${msn}`);
  expect(quality.status).toBe(200);
  const byEndpoint = Object.fromEntries((quality.body.ApiQualityItems as { endpoint: string }[]).map((item) => [item.endpoint, item]));
  expect(byEndpoint['POST /epayment/v1/payments']).toEqual(expect.objectContaining({ 'total Requests': 1, successRate: 100 }));
  expect(byEndpoint['POST /epayment/v1/test/payments/{reference}/approve']).toEqual(
    expect.objectContaining({ 'total Requests': 1, status200: 1 }),
  );
  expect(byEndpoint['GET /epayment/v1/payments/{reference}']).toEqual(
    expect.objectContaining({ 'total Requests': 2, status200: 1, status404: 1, successRate: 50 }),
  );
  const graph = await forUnit.graphql(
    `query($id: ID!) { node(id: $id) { ... on SalesUnit { msn payments { edges { node { reference state } } } apiQuality(first: 100) { edges { node { endpoint totalRequests } } } } } }`,
    { id: Buffer.from(`SalesUnit:${msn}`).toString('base64url') },
  );
  expect(graph.body.data.node.payments.edges).toEqual([{ node: { reference, state: 'AUTHORIZED' } }]);
  expect(graph.body.data.node.apiQuality.edges).toContainEqual({ node: { endpoint: 'POST /epayment/v1/payments', totalRequests: 1 } });
}, 120_000);
