import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { KARI } from '../support/user-consent.js';
import { seriousAxeViolations } from './support/axe.js';
import { collectPageErrors, launchBrowser, screenshot } from './support/browser.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

/**
 * The profile flow as a person and a merchant go through it: a payment asks for profile scopes, the test user sees
 * which, consents and approves on a phone, is sent back to the merchant's returnUrl with the user's token, and the
 * merchant reads the profile over REST (both operations) and in the graph.
 */
let t: TestApp;
let merchant: MerchantClient;
let browser: Browser;
let phone: BrowserContext;
let page: Page;
let errors: string[];
/**
 * The merchant's site behind returnUrl, answered inside the browser (no network): a page that says thanks; its
 * script would read the user's token from the fragment and pass it to the merchant's backend.
 */
const shopUrl = 'https://shop.example';

const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

beforeEach(async () => {
  phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  phone.setDefaultTimeout(CONDITION_DEADLINE_MS);
  await phone.route(`${shopUrl}/**`, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: '<!doctype html><html lang="en"><title>Test shop</title><main><h1>Thank you</h1></main></html>',
    }),
  );
  page = await phone.newPage();
  errors = collectPageErrors(page);
});

afterEach(async () => {
  await phone.close();
  expect(errors.splice(0)).toEqual([]);
});

test('the user sees the scopes, consents and approves; the merchant reads the profile over REST and in the graph', async () => {
  const reference = newReference('profile');
  const created = await merchant.createPayment({
    reference,
    amount: { currency: 'NOK', value: 49_900 },
    paymentDescription: 'Membership',
    profile: { scope: 'name email address' },
    returnUrl: `${shopUrl}/return?order=42`,
  });
  expect(created.status).toBe(201);

  await page.goto(created.body.redirectUrl);
  const asked = page.getByTestId('consent-scopes');
  expect(await asked.locator('li').allTextContents()).toEqual(['Your name', 'Your email address', 'Your address']);
  await page.getByText('Test Shop Online asks to see').waitFor();
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'user-profile-consent');

  await page.getByLabel('Your phone number (test user)').fill('91234567');
  await page.getByLabel('I agree to share this with Test Shop Online').check();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('heading', { name: 'Payment approved', level: 1 }).waitFor();
  await page.getByText('Status: Approved').waitFor();
  // What the user now shares, and with whom.
  await page.getByRole('heading', { name: 'You share with Test Shop Online' }).waitFor();
  expect(await page.getByTestId('shared-scopes').locator('li').allTextContents()).toEqual([
    'Your name',
    'Your email address',
    'Your address',
  ]);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'user-profile-shared');

  // The merchant's REST read of the payment gives the sub; userinfo/{sub} gives the consented claims only.
  const payment = await merchant.getPayment(reference);
  expect(payment.body).toEqual(expect.objectContaining({ state: 'AUTHORIZED', profile: { sub: KARI.sub } }));
  const bySub = await merchant.request('GET', `/vipps-userinfo-api/userinfo/${payment.body.profile.sub}`);
  expect(bySub.status).toBe(200);
  expect(Object.keys(bySub.body).sort()).toEqual([
    'address',
    'email',
    'email_verified',
    'family_name',
    'given_name',
    'name',
    'other_addresses',
    'sid',
    'sub',
  ]);
  expect(bySub.body).toEqual(
    expect.objectContaining({
      name: 'Kari Nordmann',
      email: 'kari.nordmann@example.com',
      address: expect.objectContaining({ street_address: 'Storgata 1' }),
    }),
  );

  // Back to the merchant: the returnUrl, with the user's token in the fragment (sent to no server).
  await page.getByRole('link', { name: 'Back to Test Shop Online' }).click();
  await page.getByRole('heading', { name: 'Thank you' }).waitFor();
  const landed = new URL(page.url());
  expect(`${landed.origin}${landed.pathname}${landed.search}`).toBe(`${shopUrl}/return?order=42`);
  const handedOver = new URLSearchParams(landed.hash.slice(1));
  expect(handedOver.get('token_type')).toBe('Bearer');
  expect(handedOver.get('scope')).toBe('name email address');
  const userToken = handedOver.get('access_token')!;
  const byUserToken = await merchant.raw('GET', '/vipps-userinfo-api/userinfo/', undefined, {
    Authorization: `Bearer ${userToken}`,
    'Ocp-Apim-Subscription-Key': 'test-key-123456',
    'Merchant-Serial-Number': '123456',
  });
  expect(byUserToken.status).toBe(200);
  expect(byUserToken.body).toEqual(bySub.body);

  // The graph: the payment's profile resolves to the same consented claims.
  const graph = await merchant.graphql(
    'query($r: String!) { payment(reference: $r) { profile { sub userInfo { name email address { streetAddress } birthdate } } } }',
    { r: reference },
  );
  expect(graph.body.data.payment.profile).toEqual({
    sub: KARI.sub,
    userInfo: { name: 'Kari Nordmann', email: 'kari.nordmann@example.com', address: { streetAddress: 'Storgata 1' }, birthdate: null },
  });
});

test('without ticking the consent box the payment is not approved', async () => {
  const reference = newReference('profile');
  const created = await merchant.createPayment({ reference, profile: { scope: 'nin' }, returnUrl: `${shopUrl}/return` });
  await page.goto(created.body.redirectUrl);
  await page.getByLabel('Your phone number (test user)').fill('91234567');
  await page.getByRole('button', { name: 'Approve' }).click();
  // The browser holds the form back; the server would refuse it too (test/user-profiles/userinfo.test.ts).
  expect(
    await page
      .getByLabel(/I agree to share this/)
      .evaluate((box) => (box as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing),
  ).toBe(true);
  expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');
});
