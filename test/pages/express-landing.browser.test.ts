import type { Page } from 'playwright-core';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { seriousAxeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { openDashboard } from './support/dashboard-page.js';
import { expectNoHorizontalScroll, usePhonePages } from './support/phone-pages.js';

// issue 34: the Express landing page at 390 px: who pays, the address, the shipping in words, the total, approve.
let t: TestApp;
let merchant: MerchantClient;
let page: Page;

const phone = usePhonePages();

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
}, 120_000);
afterAll(() => t?.close());
beforeEach(() => {
  ({ page } = phone);
});

const option = (id: string, name: string, value: number) => ({ id, name, amount: { currency: 'NOK', value } });

test('address, shipping, total and approve on a phone', async () => {
  const reference = newReference();
  const created = await merchant.createPayment({
    reference,
    amount: { currency: 'NOK', value: 49_900 },
    profile: { scope: 'name email phoneNumber address' },
    shipping: {
      fixedOptions: [
        { brand: 'POSTEN', type: 'PICKUP_POINT', isDefault: true, options: [option('posten-pickup', 'Hentested', 5_900)] },
        { brand: 'OTHER', type: 'OTHER', options: [option('local_pickup:3', 'Hent i butikk', 0)] },
      ],
    },
  });
  expect(created.status).toBe(201);

  await page.goto(created.body.redirectUrl);
  await page.getByLabel('Your phone number (test user)').fill('91234567');
  await page.getByRole('button', { name: 'Continue' }).click();

  // Kari's two addresses, the first chosen; the groups in words with the default chosen; the total with shipping.
  await page.getByLabel('Storgata 1, 0155 Oslo, NO').waitFor();
  expect(await page.getByLabel('Storgata 1, 0155 Oslo, NO').isChecked()).toBe(true);
  await page.getByText('Posten · Pickup point').waitFor();
  await page.getByText('Delivery', { exact: true }).waitFor();
  expect(await page.getByRole('radio', { name: /Hentested: kr\s59,00/ }).isChecked()).toBe(true);
  await page.getByRole('radio', { name: /Hent i butikk: Free/ }).waitFor();
  expect(await page.getByTestId('total').textContent()).toMatch(/Total with shipping: kr\s558,00/);

  // The second address, then free pickup.
  await page.getByLabel('Dronning Eufemias gate 16, 0191 Oslo, NO').check();
  await page.getByRole('button', { name: 'Use this address' }).click();
  await page.getByRole('radio', { name: /Hent i butikk: Free/ }).check();
  await page
    .getByTestId('total')
    .getByText(/kr\s499,00/)
    .waitFor();
  await expectNoHorizontalScroll(page);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'express-landing');

  await page.getByLabel(/I agree to share this with/).check();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByTestId('shipping-details').waitFor();
  expect(await page.getByTestId('shipping-details').textContent()).toContain('Hent i butikk (free) to Dronning Eufemias gate 16');

  const got = (await merchant.getPayment(reference)).body;
  expect(got.state).toBe('AUTHORIZED');
  expect(got.amount.value).toBe(49_900);
  expect(got.shippingDetails).toEqual(expect.objectContaining({ shippingOptionId: 'local_pickup:3', shippingCost: 0 }));

  // The ops dashboard's payment page shows where and how the order ships, on a phone too.
  await openDashboard(page, t.baseUrl);
  await page.evaluate(`location.hash = ${JSON.stringify(`#/payments/${encodeURIComponent(reference)}`)}`);
  const shipping = page.getByTestId('shipping');
  await shipping.waitFor();
  expect(await shipping.textContent()).toMatch(/Hent i butikk · kr\s0,00 · option local_pickup:3/);
  expect(await shipping.textContent()).toContain('Dronning Eufemias gate 16');
  expect(await shipping.textContent()).toContain('0191 Oslo, NO');
  await expectNoHorizontalScroll(page);
});
