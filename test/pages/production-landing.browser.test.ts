import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import type { TestApp } from '../support/test-app.js';
import { tokenOf, WalletClient } from '../support/wallet-client.js';
import { onboardShopAndWallet, startProductionApp, type OnboardedShop } from '../wallet/support/production-platform.js';
import { seriousAxeViolations } from './support/axe.js';
import { collectPageErrors, launchBrowser, screenshot } from './support/browser.js';

/**
 * Issue 35: the landing page a production payer opens, on a phone (390 px) and on a computer (1440 px): the shop, the
 * amount, "approve in the app", a QR code for the computer, and the state followed live while the wallet app decides.
 */
let t: TestApp;
let shop: OnboardedShop;
let merchant: MerchantClient;
let wallet: WalletClient;
let browser: Browser;
const contexts: BrowserContext[] = [];
const PAYER = '4790000002';

beforeAll(async () => {
  t = await startProductionApp();
  shop = await onboardShopAndWallet(t);
  merchant = new MerchantClient(t.baseUrl, shop.merchant);
  wallet = new WalletClient(t.baseUrl, shop.wallet);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await browser?.close();
  await t?.close();
});

async function landingAt(width: number): Promise<{ page: Page; errors: string[]; token: string; reference: string }> {
  const reference = newReference('landing');
  const created = await merchant.createPayment({
    reference,
    amount: { currency: 'NOK', value: 149_900 },
    paymentDescription: 'Vinterjakke',
    customer: { phoneNumber: PAYER },
  });
  expect(created.status).toBe(201);
  const phone = width < 600;
  const context = await browser.newContext({ viewport: { width, height: 900 }, isMobile: phone, hasTouch: phone });
  context.setDefaultTimeout(CONDITION_DEADLINE_MS);
  contexts.push(context);
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  await page.goto(created.body.redirectUrl);
  return { page, errors, token: tokenOf(created.body.redirectUrl), reference };
}

async function expectFits(page: Page, width: number): Promise<void> {
  expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

test('on a phone (390 px): the shop, the amount, approve in the app, no QR code; approved in the app, the page says so live', async () => {
  const { page, errors, token, reference } = await landingAt(390);
  await page.getByRole('heading', { name: 'Approve in the app', level: 1 }).waitFor();
  expect(await page.locator('.brand').textContent()).toBe('Paygraph');
  await page.getByRole('heading', { name: shop.shopName }).waitFor();
  expect(await page.getByTestId('amount').textContent()).toBe('kr\u00a01\u00a0499,00');
  await page.getByText('Vinterjakke').waitFor();
  await page.getByTestId('approve-in-app').waitFor();
  // The payer is on the phone already: the code is for a computer's screen.
  expect(await page.getByTestId('qr').isVisible()).toBe(false);
  expect(await page.getByText(/test wallet|test user/i).count()).toBe(0);
  expect(await page.getByRole('button').count()).toBe(0);
  await expectFits(page, 390);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'production-landing-390');

  const approved = await wallet.approve({ phoneNumber: PAYER, token });
  expect(approved.body.data.walletApprovePayment.userErrors).toEqual([]);
  await page.getByRole('heading', { name: 'Payment approved', level: 1 }).waitFor();
  await page.getByText('Status: Approved').waitFor();
  await page.getByTestId('approve-in-app').waitFor({ state: 'detached' });
  await page.getByRole('link', { name: `Back to ${shop.shopName}` }).waitFor();
  await expectFits(page, 390);
  await screenshot(page, 'production-landing-390-approved');
  expect((await merchant.getPayment(reference)).body.state).toBe('AUTHORIZED');
  expect(errors).toEqual([]);
});

test('on a computer (1440 px): the QR code shows, scannable size; rejected in the app, the page says so live', async () => {
  const { page, errors, token, reference } = await landingAt(1440);
  await page.getByRole('heading', { name: 'Approve in the app', level: 1 }).waitFor();
  const qr = page.getByRole('img', { name: 'QR code of this payment' });
  await qr.waitFor();
  const box = await qr.boundingBox();
  expect(box!.width).toBeGreaterThanOrEqual(150);
  expect(box!.height).toBe(box!.width);
  // The image loads (an SVG data URI the page's policy allows) and has a size of its own.
  expect(await qr.evaluate((img: any) => img.complete && img.naturalWidth > 0)).toBe(true);
  await page.getByText('On a computer? Scan this code with your phone').waitFor();
  await expectFits(page, 1440);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'production-landing-1440');

  const rejected = await wallet.reject({ phoneNumber: PAYER, token });
  expect(rejected.body.data.walletRejectPayment.userErrors).toEqual([]);
  await page.getByRole('heading', { name: 'Payment rejected', level: 1 }).waitFor();
  await page.getByText('Status: Rejected').waitFor();
  await qr.waitFor({ state: 'detached' });
  await screenshot(page, 'production-landing-1440-rejected');
  expect((await merchant.getPayment(reference)).body.state).toBe('ABORTED');
  expect(errors).toEqual([]);
});
