import type { Page } from 'playwright-core';
import { MerchantClient } from '../support/merchant-client.js';
import { eventually } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CheckoutClient, newSessionReference } from '../checkout/support/checkout-client.js';
import { MerchantEndpoints } from '../checkout/support/merchant-endpoints.js';
import { DYNAMIC_SHIPPING_OPTIONS } from '../checkout/support/shipping-options.js';
import { seriousAxeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { expectNoHorizontalScroll, usePhonePages } from './support/phone-pages.js';

let t: TestApp;
let merchant: MerchantClient;
let checkout: CheckoutClient;
let page: Page;
let errors: string[];
const endpoints = new MerchantEndpoints();

const phone = usePhonePages();
beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  checkout = new CheckoutClient(t.baseUrl);
  await endpoints.start();
}, 120_000);

afterAll(async () => {
  await endpoints.stop();
  await t?.close();
});

beforeEach(() => {
  ({ page, errors } = phone);
});

test('a buyer sees the prefilled checkout, types an address, picks a dynamic option and pays as 91234567; the merchant captures', async () => {
  const dynamicOptionsCallback = endpoints.on('/shipping', () => ({ status: 200, body: DYNAMIC_SHIPPING_OPTIONS }));
  const callbackUrl = endpoints.on('/callback', () => ({ status: 200 }));
  const reference = newSessionReference();
  const created = await checkout.createSession({
    merchantInfo: { callbackUrl, callbackAuthorizationToken: 'browser-cb' },
    transaction: {
      reference,
      amount: { value: 49_900, currency: 'NOK' },
      paymentDescription: 'A warm jumper',
      orderSummary: {
        orderLines: [
          {
            name: 'Wool jumper',
            id: 'jumper-1',
            totalAmount: 49_900,
            totalAmountExcludingTax: 39_920,
            totalTaxAmount: 9_980,
            taxPercentage: 25,
          },
        ],
        orderBottomLine: { currency: 'NOK' },
      },
    },
    logistics: {
      dynamicOptionsCallback,
      fixedOptions: [{ brand: 'POSTEN', amount: { value: 5000, currency: 'NOK' }, id: 'posten-home', priority: 1, isDefault: true }],
    },
    configuration: {
      elements: 'Full',
      showOrderSummary: true,
      customConsent: { text: 'Send me offers by [email](https://merchant.example/privacy)', required: false },
    },
  });
  expect(created.status).toBe(200);

  await page.goto(created.body.checkoutFrontendUrl);
  await page.getByRole('heading', { name: 'Checkout' }).waitFor();
  expect(await page.getByLabel('First name').inputValue()).toBe('Ola');
  expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('ola.nordmann@example.com');
  expect(await page.getByLabel('Street address').inputValue()).toBe('Robert Levins gate 5');
  await page.getByTestId('order-summary').getByText('Wool jumper').waitFor();
  await page.getByRole('link', { name: /terms and conditions/ }).waitFor();
  await page.getByText('Enter your address and choose “Find shipping options”.').waitFor();
  await expectNoHorizontalScroll(page);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'checkout-page');

  await page.getByLabel('Street address').fill('Karl Johans gate 1');
  await page.getByLabel('Postal code').fill('0154');
  await page.getByRole('button', { name: 'Find shipping options' }).click();
  await page.getByLabel(/Bike courier/).waitFor();
  expect(endpoints.at('/shipping')[0]!.body).toEqual({
    streetAddress: 'Karl Johans gate 1',
    postalCode: '0154',
    region: 'Oslo',
    country: 'NO',
  });
  // The dynamic options win over the fixed one.
  expect(await page.getByLabel(/Posten/).count()).toBe(0);
  expect(await page.getByLabel('Street address').inputValue()).toBe('Karl Johans gate 1');
  await page.getByLabel(/Postnord, pickup point/).check();
  await page.getByLabel(/Send me offers/).check();
  await page.getByLabel('Your wallet phone number (test user)').fill('91234567');
  await expectNoHorizontalScroll(page);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'checkout-shipping-options');
  await page.getByTestId('pay').click();
  await page.getByText('Payment approved.').waitFor();
  await page.getByText('Status: Paid').waitFor();
  await page.getByRole('heading', { name: 'Order paid', level: 1 }).waitFor();
  // The total with the chosen shipping, the option by its name, and the order's lines.
  expect(await page.getByTestId('amount').textContent()).toBe('kr\u00a0548,00');
  expect(await page.getByTestId('total').textContent()).toBe('kr\u00a0548,00');
  expect(await page.getByTestId('chosen-shipping').textContent()).toBe('Shipping: Postnord, pickup pointkr\u00a049,00');
  await page.getByTestId('order-summary').getByText('Wool jumper').waitFor();
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'checkout-paid');

  const session = await checkout.getSession(reference);
  expect(session.body).toMatchObject({
    sessionState: 'PaymentSuccessful',
    paymentDetails: { state: 'AUTHORIZED', amount: { value: 54_800, currency: 'NOK' } },
    shippingDetails: { shippingMethodId: 'pn-pickup', amount: { value: 4900, currency: 'NOK' }, streetAddress: 'Karl Johans gate 1' },
    customConsentProvided: true,
  });
  await eventually(() => endpoints.at('/callback').length === 1, 'the merchant callback');
  expect(endpoints.at('/callback')[0]!.headers.authorization).toBe('browser-cb');
  expect(endpoints.at('/callback')[0]!.body).toMatchObject({ reference, sessionState: 'PaymentSuccessful' });
  expect((await merchant.modify(reference, 'capture', 54_800)).status).toBe(200);
  expect((await checkout.getSession(reference)).body.paymentDetails.aggregate.capturedAmount.value).toBe(54_800);
});

/** The order table's rows (label and amount in øre, read back from `kr 1 234,50`) and its total. */
async function orderTable(page: Page): Promise<{ rows: [string, number | null][]; total: number }> {
  const cells = await page
    .getByTestId('order-summary')
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  const øre = (text: string) => (/\d/.test(text) ? Number(text.replace(/[^\d,]/g, '').replace(',', '')) : null);
  return {
    rows: cells.map(([label, amount]) => [label!, øre(amount!)]),
    total: øre((await page.getByTestId('total').textContent())!)!,
  };
}

for (const width of [390, 1440]) {
  test(`at ${width} px the buyer sees the total before paying, the order table adding up without showOrderSummary`, async () => {
    await page.setViewportSize({ width, height: 900 });
    const reference = newSessionReference();
    const created = await checkout.createSession({
      transaction: { reference, amount: { value: 24_900, currency: 'NOK' }, paymentDescription: 'Two pairs of socks' },
      logistics: {
        fixedOptions: [
          { brand: 'POSTEN', amount: { value: 9_900, currency: 'NOK' }, id: 'home', priority: 1, isDefault: true },
          { brand: 'POSTNORD', amount: { value: 4_900, currency: 'NOK' }, id: 'pickup', priority: 2, isDefault: false },
        ],
      },
      configuration: { elements: 'Full', showOrderSummary: false },
    });
    expect(created.status).toBe(200);
    await page.goto(created.body.checkoutFrontendUrl);
    await page.getByTestId('order-summary').waitFor();
    // The default option is selected: the table shows the order, its shipping and the total, which add up.
    const shown = await orderTable(page);
    expect(shown).toEqual({
      rows: [
        ['Two pairs of socks', 24_900],
        ['Shipping: Posten', 9_900],
      ],
      total: 34_800,
    });
    expect(await page.locator('#pay-total').textContent()).toBe(
      'You pay kr\u00a0348,00: the order kr\u00a0249,00 and shipping kr\u00a099,00.',
    );
    // The headline says the same total as the table: what Pay charges with the option selected.
    expect(await page.getByTestId('amount').textContent()).toBe('kr\u00a0348,00');
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(page, `checkout-total-${width}`);

    // Another option: the table and the sentence by Pay follow it before anything is sent.
    await page.getByLabel(/Postnord/).check();
    await page
      .getByTestId('total')
      .filter({ hasText: /^kr\s298,00$/ })
      .waitFor();
    expect(await orderTable(page)).toEqual({
      rows: [
        ['Two pairs of socks', 24_900],
        ['Shipping: Postnord', 4_900],
      ],
      total: 29_800,
    });
    expect(await page.locator('#pay-total').textContent()).toBe(
      'You pay kr\u00a0298,00: the order kr\u00a0249,00 and shipping kr\u00a049,00.',
    );
    expect(await page.getByTestId('amount').textContent()).toBe('kr\u00a0298,00');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // What was shown is what is paid.
    await page.getByLabel('Your wallet phone number (test user)').fill('91234567');
    await page.getByTestId('pay').click();
    await page.getByText('Status: Paid').waitFor();
    expect((await checkout.getSession(reference)).body.paymentDetails.amount).toEqual({ value: 29_800, currency: 'NOK' });
    expect(await orderTable(page)).toEqual({
      rows: [
        ['Two pairs of socks', 24_900],
        ['Shipping: Postnord', 4_900],
      ],
      total: 29_800,
    });
  });
}

/** Øre, read back from a shown amount (`kr 1 234,50`). */
const øreOf = (text: string | null) => Number((text ?? '').replace(/[^\d,]/g, '').replace(',', ''));

test('the headline is what Pay charges: the order "plus shipping" before any option is offered, then the selected option’s total as the buyer chooses', async () => {
  const dynamicOptionsCallback = endpoints.on('/shipping-for-headline', () => ({ status: 200, body: DYNAMIC_SHIPPING_OPTIONS }));
  const reference = newSessionReference();
  const created = await checkout.createSession({
    transaction: { reference, amount: { value: 24_900, currency: 'NOK' }, paymentDescription: 'Two pairs of socks' },
    logistics: { dynamicOptionsCallback },
    configuration: { elements: 'Full', showOrderSummary: false },
  });
  expect(created.status).toBe(200);
  const headline = page.getByTestId('amount');
  await page.goto(created.body.checkoutFrontendUrl);

  // No option yet (the shop's options need the address): the order's amount, said to be before shipping.
  expect(await headline.textContent()).toBe('kr\u00a0249,00');
  expect(await page.getByTestId('amount-note').textContent()).toBe('plus shipping, chosen once you give your address');
  expect(await page.getByTestId('total').textContent()).toBe('kr\u00a0249,00');
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'checkout-headline-before-shipping');

  // The options for the address: the shop's default (the bike courier, kr 99) is selected, and the headline is its total.
  await page.getByRole('button', { name: 'Find shipping options' }).click();
  await page.getByLabel(/Bike courier/).waitFor();
  expect(await page.getByLabel(/Bike courier/).isChecked()).toBe(true);
  expect(await headline.textContent()).toBe('kr\u00a0348,00');
  expect(await page.getByTestId('amount-note').count()).toBe(0);

  // Each option chosen: the headline follows it, and says what the table totals.
  for (const [option, total] of [
    [/Postnord/, 'kr\u00a0298,00'],
    [/Bike courier/, 'kr\u00a0348,00'],
    [/Postnord/, 'kr\u00a0298,00'],
  ] as const) {
    await page.getByLabel(option).check();
    await headline.filter({ hasText: new RegExp(`^${total}$`) }).waitFor();
    expect(await page.getByTestId('total').textContent()).toBe(total);
  }
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'checkout-headline-chosen');

  // What the headline said last is what is charged, and what it says once paid.
  const lastShown = øreOf(await headline.textContent());
  await page.getByLabel('Your wallet phone number (test user)').fill('91234567');
  await page.getByTestId('pay').click();
  await page.getByText('Status: Paid').waitFor();
  expect((await checkout.getSession(reference)).body.paymentDetails.amount).toEqual({ value: lastShown, currency: 'NOK' });
  expect(øreOf(await headline.textContent())).toBe(lastShown);
});

test('paid in another browser with another option, the open page’s headline turns to the amount charged', async () => {
  const created = await checkout.createSession({
    transaction: { amount: { value: 24_900, currency: 'NOK' } },
    logistics: {
      fixedOptions: [
        { brand: 'POSTEN', amount: { value: 9_900, currency: 'NOK' }, id: 'home', priority: 1, isDefault: true },
        { brand: 'POSTNORD', amount: { value: 4_900, currency: 'NOK' }, id: 'pickup', priority: 2, isDefault: false },
      ],
    },
    configuration: { elements: 'Full' },
  });
  await page.goto(created.body.checkoutFrontendUrl);
  const headline = page.getByTestId('amount');
  expect(await headline.textContent()).toBe('kr\u00a0348,00');
  const other = await page.context().browser()!.newContext();
  try {
    const second = await other.newPage();
    await second.goto(created.body.checkoutFrontendUrl);
    await second.getByLabel(/Postnord/).check();
    await second.getByLabel('Your wallet phone number (test user)').fill('91234567');
    await second.getByTestId('pay').click();
    await second.getByText('Payment approved.').waitFor();
  } finally {
    await other.close();
  }
  await page.getByText('Status: Paid').waitFor();
  await headline.filter({ hasText: /^kr\s298,00$/ }).waitFor();
});

test('invalid input is shown next to its field, and the page stays accessible', async () => {
  const created = await checkout.createSession({ logistics: null, configuration: { elements: 'PaymentAndContactInfo' } });
  await page.goto(created.body.checkoutFrontendUrl);
  await page.getByLabel('Email', { exact: true }).fill('not-an-email');
  await page.getByLabel('First name').fill('');
  await page.getByLabel('Your wallet phone number (test user)').fill('91234567');
  await page.getByTestId('pay').click();
  await page.locator('#email-error').waitFor();
  expect(await page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('#firstName-error').textContent()).toBe('Required');
  expect(await seriousAxeViolations(page)).toEqual([]);
  await expectNoHorizontalScroll(page);
  await screenshot(page, 'checkout-invalid');
  // The refused form answers 400 (as it should); that is the one failed response this test expects.
  const expected = errors.filter((e) => / 400 POST .*\/checkout\/page\/pay/.test(e));
  expect(expected.length).toBeGreaterThan(0);
  errors.splice(0, errors.length, ...errors.filter((e) => !expected.includes(e)));
});

/** Marks the loaded document; the returned check is true while the same document is shown (no reload, no navigation). */
async function markPage(): Promise<() => Promise<boolean>> {
  await page.evaluate(() => ((globalThis as { loadMark?: number }).loadMark = 1));
  return () => page.evaluate(() => (globalThis as { loadMark?: number }).loadMark === 1);
}

/** The page ended elsewhere: its state shown live, the forms gone, the way back to the merchant offered. */
async function expectEndedLive(state: string, loaded: () => Promise<boolean>): Promise<void> {
  await page.getByText(`Status: ${state}`).waitFor();
  await page.getByTestId('pay').waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Cancel' }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Back to Test Shop Online' }).waitFor();
  expect(await loaded()).toBe(true);
  expect(await seriousAxeViolations(page)).toEqual([]);
}

test('paid in another browser, the open checkout page shows the session paid without a reload', async () => {
  const created = await checkout.createSession({ logistics: null, configuration: { elements: 'PaymentOnly' } });
  await page.goto(created.body.checkoutFrontendUrl);
  await page.getByText('Status: Waiting for your details').waitFor();
  expect(await page.getByRole('link', { name: 'Back to Test Shop Online' }).isVisible()).toBe(false);
  const loaded = await markPage();
  // The buyer's other device: a context of its own, with its own cookies and storage.
  const other = await page.context().browser()!.newContext();
  try {
    const second = await other.newPage();
    await second.goto(created.body.checkoutFrontendUrl);
    await second.getByLabel('Your wallet phone number (test user)').fill('91234567');
    await second.getByTestId('pay').click();
    await second.getByText('Payment approved.').waitFor();
  } finally {
    await other.close();
  }
  await expectEndedLive('Paid', loaded);
  await screenshot(page, 'checkout-paid-elsewhere');
});

test('its payment approved through ePayment, the open checkout page follows the session to PaymentSuccessful', async () => {
  const reference = newSessionReference();
  const created = await checkout.createSession({ transaction: { reference }, logistics: null, configuration: { elements: 'PaymentOnly' } });
  await page.goto(created.body.checkoutFrontendUrl);
  // A phone number no test user has: the session has its payment (PaymentInitiated), and the buyer may try again.
  await page.getByLabel('Your wallet phone number (test user)').fill('11111111');
  await page.getByTestId('pay').click();
  await page.getByText('Status: Waiting for your approval').waitFor();
  const loaded = await markPage();
  expect((await merchant.forceApprove(reference)).status).toBe(200);
  await expectEndedLive('Paid', loaded);
  const expected = errors.filter((e) => / 400 POST .*\/checkout\/page\/pay/.test(e));
  expect(expected.length).toBeGreaterThan(0);
  errors.splice(0, errors.length, ...errors.filter((e) => !expected.includes(e)));
});

// Last in the file: it moves the clock of the merchant's sales unit an hour on.
test('left for an hour (the test clock), the open checkout page shows the session expired', async () => {
  const created = await checkout.createSession();
  await page.goto(created.body.checkoutFrontendUrl);
  await page.getByText('Status: Waiting for your details').waitFor();
  await page.getByLabel('Street address').focus();
  const loaded = await markPage();
  const moved = await merchant.graphql('mutation { advanceTestClock(input: { seconds: 3601 }) { userErrors { code } } }');
  expect(moved.body.data.advanceTestClock.userErrors).toEqual([]);
  await expectEndedLive('Expired', loaded);
  await page.getByRole('heading', { name: 'Checkout expired', level: 1 }).waitFor();
  await screenshot(page, 'checkout-expired');
  // The field that had focus is gone: focus moves on to where the page continues.
  expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Back to Test Shop Online');
});
