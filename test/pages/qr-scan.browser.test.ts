import type { Page } from 'playwright-core';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { seriousAxeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { expectNoHorizontalScroll, usePhonePages } from './support/phone-pages.js';

let t: TestApp;
let merchant: MerchantClient;
let page: Page;
let errors: string[];

const phone = usePhonePages();

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

beforeEach(() => {
  ({ page, errors } = phone);
});

// issue 9: the callback QR's scan page, where a person plays the wallet user.
test('the scan page passes the axe scan on a phone; picking a test user checks in, and the token pays', async () => {
  expect((await merchant.request('PUT', '/qr/v1/merchant-callback/kiosk-3', { locationDescription: 'Kiosk 3' })).status).toBe(200);
  const { qrContent } = (await merchant.request('GET', '/qr/v1/merchant-callback/kiosk-3', undefined, { Accept: 'image/svg+xml' })).body;
  await page.goto(qrContent);
  // The shop by its name, the place by the QR's description.
  await page.getByRole('heading', { name: 'Test Shop Online' }).waitFor();
  expect(await page.getByTestId('location').textContent()).toBe('Kiosk 3');
  // Each test user is a row a thumb can hit (at least 44 px high), not a small select.
  const pick = page.getByRole('radio', { name: /4791234567/ });
  const row = await page.locator('label.pick').filter({ has: pick }).boundingBox();
  expect(row!.height).toBeGreaterThanOrEqual(44);
  expect(row!.width).toBeGreaterThan(300);
  await expectNoHorizontalScroll(page);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'qr-scan');

  await pick.check();
  await page.getByRole('button', { name: 'Check in' }).click();
  await page.getByRole('heading', { name: 'Checked in', level: 1 }).waitFor();
  // Who checked in, and where.
  expect(await page.getByTestId('checked-in').textContent()).toMatch(/^.+ is checked in at Test Shop Online, Kiosk 3\.$/);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'qr-scan-checked-in');
  const token = (await page.getByTestId('customer-token').locator('code').textContent())!;
  expect(token).toMatch(/^[A-Za-z0-9+/]+=*$/);

  const reference = newReference('qr-scan');
  const created = await merchant.createPayment({
    reference,
    userFlow: 'PUSH_MESSAGE',
    returnUrl: undefined,
    customer: { customerToken: token },
  });
  expect(created.status).toBe(201);
  expect((await merchant.forceApprove(reference)).status).toBe(200);
}, 120_000);

test('an unknown QR shows a readable page, not an error dump', async () => {
  const res = await page.goto(`${t.baseUrl}/qr/scan/00000000-0000-4000-8000-000000000000`);
  expect(res?.status()).toBe(404);
  await page.getByText('This QR code is not known.').waitFor();
  expect(await seriousAxeViolations(page)).toEqual([]);
  // The 404 itself is what this test asks for: the collector's record of it is expected, nothing else is.
  expect(errors.splice(0).every((e) => e.startsWith('response: 404 GET'))).toBe(true);
});
