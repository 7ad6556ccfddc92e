import type { Page } from 'playwright-core';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { seriousAxeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { expectNoHorizontalScroll, usePhonePages } from './support/phone-pages.js';

let t: TestApp;
let merchant: MerchantClient;
let page: Page;

const phone = usePhonePages();

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

beforeEach(() => {
  ({ page } = phone);
});

async function landing(overrides: Record<string, unknown> = {}): Promise<{ reference: string; redirectUrl: string }> {
  const reference = newReference('wallet');
  const res = await merchant.createPayment({ reference, ...overrides });
  expect(res.status).toBe(201);
  return { reference, redirectUrl: res.body.redirectUrl };
}

test('the landing page shows merchant, amount in NOK and details, passes the axe scan on a phone, and approves', async () => {
  const { reference, redirectUrl } = await landing({
    amount: { currency: 'NOK', value: 123_450 },
    paymentDescription: 'Two pairs of socks',
  });
  await page.goto(redirectUrl);
  await page.getByRole('heading', { name: 'Test Shop Online' }).waitFor();
  expect(await page.getByTestId('amount').textContent()).toBe('kr\u00a01\u00a0234,50');
  await page.getByText('Two pairs of socks').waitFor();
  await expectNoHorizontalScroll(page);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'wallet-landing');

  // Focus order follows the page: the phone number, then approve, then reject.
  await page.getByLabel('Your phone number (test user)').focus();
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Approve');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Reject');

  await page.getByLabel('Your phone number (test user)').fill('91234567');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('heading', { name: 'Payment approved', level: 1 }).waitFor();
  await page.getByText('Status: Approved').waitFor();
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'wallet-approved');
  expect((await merchant.getPayment(reference)).body.state).toBe('AUTHORIZED');
});

test('the shown state updates live when the payment is approved elsewhere', async () => {
  const { reference, redirectUrl } = await landing();
  await page.goto(redirectUrl);
  await page.getByText('Status: Waiting for your approval').waitFor();
  expect((await merchant.forceApprove(reference)).status).toBe(200);
  await page.getByRole('heading', { name: 'Payment approved', level: 1 }).waitFor();
  await page.getByText('Status: Approved').waitFor();
  await page.getByRole('button', { name: 'Approve' }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Back to Test Shop Online' }).waitFor();
});

test('reject aborts the payment', async () => {
  const { reference, redirectUrl } = await landing();
  await page.goto(redirectUrl);
  await page.getByRole('button', { name: 'Reject' }).click();
  await page.getByRole('heading', { name: 'Payment rejected', level: 1 }).waitFor();
  await page.getByText('Status: Rejected').waitFor();
  await page.getByText('The payment was rejected. No money was taken.').waitFor();
  expect(await page.getByTestId('summary').getAttribute('data-tone')).toBe('failure');
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'wallet-rejected');
  expect((await merchant.getPayment(reference)).body.state).toBe('ABORTED');
});

test('the profile scopes asked for are listed and consented to before approval', async () => {
  const { reference, redirectUrl } = await landing({ profile: { scope: 'name email' } });
  await page.goto(redirectUrl);
  const scopes = page.getByTestId('consent-scopes');
  expect(await scopes.locator('li').allTextContents()).toEqual(['Your name', 'Your email address']);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'wallet-consent');
  await page.getByLabel('Your phone number (test user)').fill('91234567');
  await page.getByRole('button', { name: 'Approve' }).click();
  // The browser holds the form back until the consent box is ticked.
  expect(await page.getByLabel(/I agree to share this/).evaluate((box) => (box as any).validity.valueMissing)).toBe(true);
  await page.getByLabel(/I agree to share this/).check();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('Status: Approved').waitFor();
  expect((await merchant.getPayment(reference)).body.profile.sub).toEqual(expect.any(String));
});

test('a payment description with a script shows as text and runs nothing', async () => {
  const { redirectUrl } = await landing({
    paymentDescription: '<script>globalThis.pwned = 1</script><img src=x onerror="globalThis.pwned = 2">',
  });
  await page.goto(redirectUrl);
  await page.getByText('<script>globalThis.pwned = 1</script>', { exact: false }).waitFor();
  expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  expect(await page.locator('main img').count()).toBe(0);
});

test('cancelled by the shop while open, the page says so in the failure style and offers the way back', async () => {
  const { reference, redirectUrl } = await landing({ amount: { currency: 'NOK', value: 123_450 } });
  await page.goto(redirectUrl);
  await page.getByText('Status: Waiting for your approval').waitFor();
  expect((await merchant.modify(reference, 'cancel')).status).toBe(200);
  await page.getByRole('heading', { name: 'Payment cancelled', level: 1 }).waitFor();
  await page.getByText('Status: Cancelled by the shop').waitFor();
  await page.getByText('The shop cancelled this payment. No money was taken.').waitFor();
  expect(await page.getByTestId('summary').getAttribute('data-tone')).toBe('failure');
  await page.getByRole('button', { name: 'Approve' }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Back to Test Shop Online' }).waitFor();
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'wallet-cancelled');
});

// Last in the file: it moves the clock past every payment's expiry.
test('a payment left past its expiry says it expired and that no money was taken', async () => {
  const { redirectUrl } = await landing();
  t.clock.advance(11 * 60_000);
  await page.goto(redirectUrl);
  await page.getByRole('heading', { name: 'Payment expired', level: 1 }).waitFor();
  await page.getByText('Status: Expired').waitFor();
  await page.getByText('The payment was not approved in time and has expired. No money was taken.').waitFor();
  expect(await page.getByTestId('summary').getAttribute('data-tone')).toBe('failure');
  expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
  await expectNoHorizontalScroll(page);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'wallet-expired');
});
