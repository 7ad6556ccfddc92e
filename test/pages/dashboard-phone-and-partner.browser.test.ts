import type { Browser, Page } from 'playwright-core';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { collectPageErrors, launchBrowser, screenshot } from './support/browser.js';
import { feedRow, openDashboard } from './support/dashboard-page.js';

/**
 * Issue 35: the dashboard's tables read on a phone. At 390 px a row is a stack of labelled lines and nothing scrolls
 * sideways; at 1440 px the same tables are tables. A payment's page offers only what the payment can take, in kroner,
 * and the feed says what became of a payment. A partner signs in without typing an MSN and picks from its units.
 */
let t: TestApp;
let browser: Browser;
let reference: string;
/** Payments at three points of their life: waiting for the user, partly captured, captured and refunded in full. */
let waiting: string;
let partly: string;
let done: string;

beforeAll(async () => {
  t = await startTestApp();
  const merchant = new MerchantClient(t.baseUrl);
  reference = await merchant.authorizedPayment(12_345, { reference: newReference('phone') });
  waiting = newReference('phone-waiting');
  expect((await merchant.createPayment({ reference: waiting })).status).toBe(201);
  partly = await merchant.authorizedPayment(12_345, { reference: newReference('phone-partly') });
  expect((await merchant.modify(partly, 'capture', 5_000)).status).toBe(200);
  done = await merchant.authorizedPayment(10_000, { reference: newReference('phone-done') });
  expect((await merchant.modify(done, 'capture', 10_000)).status).toBe(200);
  expect((await merchant.modify(done, 'refund', 10_000)).status).toBe(200);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The page's dashboard at `width`, signed in, with the payment's row in the live feed and in the search. */
async function dashboardAt(width: number): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  context.setDefaultTimeout(CONDITION_DEADLINE_MS);
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  await openDashboard(page, t.baseUrl);
  await feedRow(page, reference, 'AUTHORIZED').waitFor();
  return { page, errors };
}

// The checks run in the page, given as source text: this project's TypeScript has no DOM types.

/** Cards whose content is wider than they are (they would scroll sideways), by their heading. */
const overflowing = (page: Page) =>
  page.evaluate<string[]>(`[...document.querySelectorAll('.card')]
    .filter((card) => card.scrollWidth > card.clientWidth + 1)
    .map((card) => card.querySelector('h2, h3')?.textContent ?? card.className)`);

/** Where the first two cells of the row lie, and what the first one is labelled on a phone. */
const cellsOf = (page: Page, selector: string) =>
  page.evaluate<{ sameLine: boolean; label: string }>(`(() => {
    const row = document.querySelector(${JSON.stringify(selector)});
    const [first, second] = [...row.querySelectorAll('td')].map((td) => td.getBoundingClientRect());
    return { sameLine: Math.abs(first.top - second.top) < 2, label: getComputedStyle(row.querySelector('td'), '::before').content };
  })()`);

test('on a 390 px phone every row is a stack of labelled lines and no card scrolls sideways', async () => {
  const { page, errors } = await dashboardAt(390);
  expect(await cellsOf(page, `[data-testid="feed-row"][data-reference="${reference}"]`)).toEqual({ sameLine: false, label: '"When"' });
  expect(await overflowing(page)).toEqual([]);
  expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  await screenshot(page, 'dashboard-phone-live');

  await page.getByRole('link', { name: 'Search' }).click();
  await page.getByTestId('search-reference').fill(reference);
  await page.getByTestId('search-submit').click();
  const row = `[data-testid="search-row"][data-reference="${reference}"]`;
  await page.locator(row).waitFor();
  expect(await cellsOf(page, row)).toEqual({ sameLine: false, label: '"Created"' });
  expect(await overflowing(page)).toEqual([]);
  await screenshot(page, 'dashboard-phone-search');
  expect(errors).toEqual([]);
});

test('at 1440 px the same rows are table rows under their column headings', async () => {
  const { page, errors } = await dashboardAt(1440);
  const live = await cellsOf(page, `[data-testid="feed-row"][data-reference="${reference}"]`);
  expect(live.sameLine).toBe(true);
  await page.getByRole('columnheader', { name: 'Outcome' }).waitFor();
  expect(await overflowing(page)).toEqual([]);
  expect(errors).toEqual([]);
});

/** What the payment's page offers: its action controls (buttons and the amount boxes' starting values), by test id. */
async function offered(page: Page, reference: string) {
  await page.evaluate(`location.hash = ${JSON.stringify(`#/payments/${encodeURIComponent(reference)}`)}`);
  await page.getByTestId('payment-reference').filter({ hasText: reference }).waitFor();
  const actions = page.locator('.actions');
  return {
    outcome: await page.getByTestId('payment-outcome').textContent(),
    buttons: await actions.getByRole('button').allTextContents(),
    capture: (await page.getByTestId('capture-amount').count()) ? await page.getByTestId('capture-amount').inputValue() : undefined,
    refund: (await page.getByTestId('refund-amount').count()) ? await page.getByTestId('refund-amount').inputValue() : undefined,
    text: (await actions.textContent())!.replace(/\s+/g, ' '),
  };
}

for (const width of [390, 1440]) {
  test(`at ${width} px a payment's page offers only the actions it can take, with amounts in kroner, and the feed speaks outcomes`, async () => {
    const { page, errors } = await dashboardAt(width);
    // The feed: a captured payment is Captured, a refunded one Refunded, though both stay AUTHORIZED.
    for (const [ref, outcome, label] of [
      [partly, 'CAPTURED', 'Captured'],
      [done, 'REFUNDED', 'Refunded'],
      [waiting, 'PENDING', 'Waiting for the user'],
    ]) {
      const row = page.locator(`[data-testid="feed-row"][data-reference="${ref}"]`).first();
      await row.waitFor();
      expect({ outcome: await row.getAttribute('data-outcome'), text: await row.getByTestId('feed-outcome').textContent() }).toEqual({
        outcome,
        text: label,
      });
    }

    const before = await offered(page, waiting);
    expect(before).toMatchObject({
      outcome: 'Waiting for the user',
      buttons: ['Cancel the payment…'],
      capture: undefined,
      refund: undefined,
    });

    const part = await offered(page, partly);
    expect(part).toMatchObject({
      outcome: 'Captured',
      buttons: ['Capture…', 'Refund…', 'Release kr\u00a073,45…'],
      capture: '73,45',
      refund: '50,00',
    });
    expect(part.text).toContain('kr 73,45 reserved and not captured');
    expect(part.text).toContain('kr 50,00 captured and not refunded');
    expect(await overflowing(page)).toEqual([]);
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    // A limit is a limit in kroner: more than is left is refused on the page, before anything is sent.
    await page.getByTestId('capture-amount').fill('100');
    await page.getByRole('button', { name: 'Capture…' }).click();
    await page.getByTestId('action-result').filter({ hasText: 'At most kr\u00a073,45 can be captured.' }).waitFor();
    await screenshot(page, `dashboard-actions-${width}`);

    const after = await offered(page, done);
    expect(after).toMatchObject({ outcome: 'Refunded', buttons: [], capture: undefined, refund: undefined });
    expect(after.text).toContain('Nothing is left to capture, refund or cancel.');
    expect(errors).toEqual([]);
  });
}

test('a partner signs in without a merchant serial number and picks among its units', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
  context.setDefaultTimeout(CONDITION_DEADLINE_MS);
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  await page.goto(`${t.baseUrl}/dashboard`);
  await page.getByLabel('Client id').fill('test-client-partner');
  await page.getByLabel('Client secret').fill('test-secret-partner');
  await page.getByLabel('Subscription key').fill('test-key-partner');
  await page.getByLabel(/^Merchant serial number/).fill('');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('connection').filter({ hasText: 'Live' }).waitFor();
  const picker = page.getByTestId('sales-unit');
  expect(await picker.locator('option').evaluateAll((options) => options.map((o) => o.getAttribute('value')))).toEqual([
    '123456',
    '654321',
  ]);
  expect(await picker.inputValue()).toBe('123456');
  // The partner's view of the unit it acts for: the payment made there is in its feed.
  await feedRow(page, reference, 'AUTHORIZED').waitFor();
  await picker.selectOption('654321');
  await page.getByTestId('connection').filter({ hasText: 'Live' }).waitFor();
  expect(await feedRow(page, reference).count()).toBe(0);
  expect(errors).toEqual([]);
});
