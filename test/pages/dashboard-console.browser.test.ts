import { text } from 'node:stream/consumers';
import type { Browser, Page } from 'playwright-core';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { seriousAxeViolations } from './support/axe.js';
import { collectPageErrors, launchBrowser, screenshot } from './support/browser.js';
import { feedRow, openDashboard } from './support/dashboard-page.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { eventually } from '../support/subscriber.js';

/** issue 22: the dashboard as a tool: search over history, actions on a payment, a test clock that moved. */
let t: TestApp;
let merchant: MerchantClient;
let browser: Browser;
let dashboard: Page;
let errors: string[];
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  browser = await launchBrowser();
  const ops = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  // Generous: the machine that runs these may be busy; nothing here asserts a time.
  ops.setDefaultTimeout(CONDITION_DEADLINE_MS);
  dashboard = await ops.newPage();
  errors = collectPageErrors(dashboard);
  receiver = await new WebhookReceiver().start();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

afterEach(() => {
  expect(errors.splice(0)).toEqual([]);
});

test('the search finds a payment older than the feed loaded, keeps its filters in the URL and exports them as CSV', async () => {
  const old = newReference('archive');
  expect((await merchant.createPayment({ reference: old, amount: { currency: 'NOK', value: 4_321 } })).status).toBe(201);
  // More events after it than the feed's first page holds.
  for (let i = 0; i < 55; i++) expect((await merchant.createPayment()).status).toBe(201);
  await openDashboard(dashboard, t.baseUrl);
  await dashboard.getByTestId('feed-row').nth(49).waitFor();
  expect(await feedRow(dashboard, old).count()).toBe(0);

  await dashboard.getByRole('link', { name: 'Search' }).click();
  await dashboard.getByTestId('search-reference').fill(old.slice(0, 20));
  await dashboard.getByLabel('Outcome').selectOption('PENDING');
  await dashboard.getByTestId('search-submit').click();
  await dashboard.locator(`[data-testid="search-row"][data-reference="${old}"]`).waitFor();
  // The rows of the search before (every payment) stay until this one's answer replaces them.
  await eventually(async () => (await dashboard.getByTestId('search-row').count()) === 1, 'the search to show one row');
  const hash = new URLSearchParams((await dashboard.evaluate<string>('location.hash')).replace(/^#\/search\?/, ''));
  expect(Object.fromEntries(hash)).toEqual({ reference: old.slice(0, 20), outcome: 'PENDING' });
  expect(await seriousAxeViolations(dashboard)).toEqual([]);
  await screenshot(dashboard, 'dashboard-search');

  const [download] = await Promise.all([dashboard.waitForEvent('download'), dashboard.getByTestId('search-export').click()]);
  const csv = await text(await download.createReadStream());
  expect(csv.split('\r\n').slice(0, 2)).toEqual([
    'reference,state,created_at,currency,amount,captured,refunded,cancelled',
    expect.stringMatching(new RegExp(`^${old},CREATED,[^,]+,NOK,4321,0,0,0$`)),
  ]);

  // The found payment's page shows its whole timeline.
  await dashboard.getByRole('link', { name: old }).click();
  await dashboard.getByTestId('timeline').locator('[data-event="CREATED"]').waitFor();
  // 56 payments made one by one over HTTP: on the embedded database of a busy machine, more than jest's 30 s.
}, 180_000);

/** The references each search request of the page asked for, in the order sent (its `referencePrefix`). */
function searchedPrefixes(page: Page): string[] {
  const prefixes: string[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'POST' || !request.url().endsWith('/graphql')) return;
    const filter = (request.postDataJSON() as { variables?: { filter?: { referencePrefix?: string } } }).variables?.filter;
    if (filter?.referencePrefix !== undefined) prefixes.push(filter.referencePrefix);
  });
  return prefixes;
}

test('a new search keeps the rows shown until its answer replaces them, and a URL that reads the same search again reads nothing', async () => {
  const prefix = newReference('keep').slice(0, 17);
  for (const suffix of ['a1', 'a2', 'b1']) {
    expect((await merchant.createPayment({ reference: `${prefix}-${suffix}` })).status).toBe(201);
  }
  const searched = searchedPrefixes(dashboard);
  const rowsShown = async () =>
    dashboard.getByTestId('search-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-reference')).sort());
  await dashboard.evaluate(`location.hash = ${JSON.stringify(`#/search?reference=${encodeURIComponent(prefix)}`)}`);
  await eventually(async () => (await rowsShown()).length === 3, 'the three payments of the first search');

  // Records whether the list of rows is ever empty from here on, at every change of the page's DOM.
  await dashboard.evaluate(() => {
    const doc = (globalThis as any).document;
    const seen = ((globalThis as any).rowsEverEmpty = { empty: false, changes: 0 });
    new (globalThis as any).MutationObserver(() => {
      seen.changes++;
      if (doc.querySelectorAll('[data-testid="search-row"]').length === 0) seen.empty = true;
    }).observe(doc.body, { childList: true, subtree: true, characterData: true, attributes: true });
  });
  const rowsEverEmpty = () => dashboard.evaluate<{ empty: boolean; changes: number }>('globalThis.rowsEverEmpty');

  // A narrower search, typed and sent with Enter.
  await dashboard.getByTestId('search-reference').fill(`${prefix}-a`);
  await dashboard.getByTestId('search-reference').press('Enter');
  await eventually(async () => (await rowsShown()).length === 2, 'the two payments of the narrower search');
  expect(await rowsShown()).toEqual([`${prefix}-a1`, `${prefix}-a2`]);
  const afterSearch = await rowsEverEmpty();
  // The observer saw the page change (the status, the rows), and never without rows.
  expect(afterSearch.changes).toBeGreaterThan(0);
  expect(afterSearch.empty).toBe(false);

  // The URL settles to the same search spelled otherwise (another order, an empty field): nothing is read or cleared.
  await dashboard.evaluate(
    (hash) =>
      new Promise<void>((resolve) => {
        const page = globalThis as any;
        page.addEventListener('hashchange', () => resolve(), { once: true });
        page.location.hash = hash;
      }),
    `#/search?state=&reference=${encodeURIComponent(`${prefix}-a`)}`,
  );
  // The next search's answer arrives after anything the settled URL would have read.
  await dashboard.getByTestId('search-reference').fill(`${prefix}-b`);
  await dashboard.getByTestId('search-reference').press('Enter');
  await eventually(async () => JSON.stringify(await rowsShown()) === JSON.stringify([`${prefix}-b1`]), 'the payment of the third search');
  expect(searched).toEqual([prefix, `${prefix}-a`, `${prefix}-b`]);
  expect((await rowsEverEmpty()).empty).toBe(false);
});

test('a capture and a refund from the payment page, each confirmed, an amount above what is left refused in kroner', async () => {
  const reference = await merchant.authorizedPayment(10_000, { reference: newReference('act') });
  await dashboard.evaluate(`location.hash = ${JSON.stringify(`#/payments/${encodeURIComponent(reference)}`)}`);
  await dashboard.getByTestId('payment-reference').filter({ hasText: reference }).waitFor();

  await dashboard.getByTestId('capture-amount').fill('60,00');
  await dashboard.getByRole('button', { name: 'Capture…' }).click();
  await dashboard
    .getByTestId('confirm')
    .getByText(/Capture kr\s60,00 of/)
    .waitFor();
  await dashboard.getByTestId('confirm-yes').click();
  await dashboard
    .getByTestId('action-result')
    .filter({ hasText: /^Captured kr\s60,00 \(key [0-9a-f-]{36}\)\.$/ })
    .waitFor();
  await dashboard
    .getByTestId('payment-captured')
    .filter({ hasText: /^kr\s60,00$/ })
    .waitFor();

  // Above what is left to refund: refused on the page, in kroner, before anything is sent.
  await dashboard.getByTestId('refund-amount').fill('80');
  await dashboard.getByRole('button', { name: 'Refund…' }).click();
  await dashboard
    .getByTestId('action-result')
    .filter({ hasText: /^At most kr\s60,00 can be refunded\.$/ })
    .waitFor();
  expect(await dashboard.getByTestId('confirm').count()).toBe(0);

  await dashboard.getByTestId('refund-amount').fill('25');
  await dashboard.getByRole('button', { name: 'Refund…' }).click();
  await dashboard.getByTestId('confirm-yes').click();
  await dashboard
    .getByTestId('action-result')
    .filter({ hasText: /^Refunded kr\s25,00/ })
    .waitFor();
  await dashboard.getByTestId('timeline').locator('[data-event="REFUNDED"]').waitFor();
  // One date format on every page (src/pages/client/shared/format.ts): each moment of the timeline reads `05.12.2026, 14:03:09`.
  const moments = await dashboard.getByTestId('timeline').locator('time').allTextContents();
  expect(moments.length).toBeGreaterThanOrEqual(4);
  for (const moment of moments) expect(moment).toMatch(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}$/);

  // What the page did is what the API shows, each action once.
  const events = (await merchant.events(reference)).body as { name: string; amount: { value: number } }[];
  expect(events.filter((e) => e.name === 'CAPTURED').map((e) => e.amount.value)).toEqual([6_000]);
  expect(events.filter((e) => e.name === 'REFUNDED').map((e) => e.amount.value)).toEqual([2_500]);
  expect(await seriousAxeViolations(dashboard)).toEqual([]);
  await screenshot(dashboard, 'dashboard-actions');
}, 120_000);

test('a failing receiver is singled out on the live page and on the webhooks page, with its next attempt time', async () => {
  const events = ['epayments.payment.created.v1'];
  const failing = await merchant.request('POST', '/webhooks/v1/webhooks', { url: receiver.url('/broken'), events });
  const healthy = await merchant.request('POST', '/webhooks/v1/webhooks', { url: receiver.url('/fine'), events });
  receiver.route('/broken', failing.body.secret, () => 503);
  receiver.route('/fine', healthy.body.secret, () => 200);
  await dashboard.evaluate("location.hash = '#/'");
  const reference = newReference('hook');
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const ATTEMPTS = '{ webhooks { id failureRate { attempts } } }';
  for (let attempts = 0; attempts === 0; await new Promise((r) => setTimeout(r, 25))) {
    const hooks = (await merchant.graphql(ATTEMPTS)).body.data.webhooks as { id: string; failureRate: { attempts: number } }[];
    attempts = hooks.find((w) => w.id === failing.body.id)!.failureRate.attempts;
  }
  // The live page reads its figures again at the next event.
  expect((await merchant.createPayment()).status).toBe(201);
  await dashboard
    .getByTestId('failing-webhook')
    .filter({ hasText: receiver.url('/broken') })
    .waitFor();
  expect(
    await dashboard
      .getByTestId('failing-webhook')
      .filter({ hasText: receiver.url('/fine') })
      .count(),
  ).toBe(0);

  await dashboard.getByRole('link', { name: 'Webhooks' }).click();
  const broken = dashboard.locator('[data-testid="webhook"][data-failing="true"]').filter({ hasText: receiver.url('/broken') });
  await broken.waitFor();
  const delivery = broken.locator('[data-testid="delivery"][data-status="PENDING"]').filter({ hasText: reference });
  await delivery.getByTestId('next-attempt').waitFor();
  await delivery.locator('[data-testid="attempt"][data-outcome="FAILED"]').getByText('503').waitFor();
  expect(
    await dashboard
      .locator('[data-testid="webhook"][data-failing="false"]')
      .filter({ hasText: receiver.url('/fine') })
      .count(),
  ).toBe(1);
  expect(await seriousAxeViolations(dashboard)).toEqual([]);
  await screenshot(dashboard, 'dashboard-webhook-health');
  for (const id of [failing.body.id, healthy.body.id]) await merchant.request('DELETE', `/webhooks/v1/webhooks/${id}`);
}, 120_000);

test('every kind of event can be listed and followed live, a QR check-in beside the payments', async () => {
  await merchant.request('PUT', '/qr/v1/merchant-callback/door', { locationDescription: 'Door' });
  const { qrContent } = (await merchant.request('GET', '/qr/v1/merchant-callback/door', undefined, { Accept: 'image/svg+xml' })).body;
  const checkIn = () =>
    fetch(qrContent, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.baseUrl },
      body: 'phoneNumber=4791234567',
    });
  expect((await checkIn()).status).toBe(200);
  await dashboard.getByRole('link', { name: 'All events' }).click();
  await dashboard.locator('[data-testid="log-row"][data-stream="qr"]').first().waitFor();
  await dashboard.locator('[data-testid="log-row"][data-stream="payment"]').first().waitFor();
  await dashboard.getByTestId('event-stream').selectOption('qr');
  await dashboard.locator('[data-testid="log-row"][data-stream="payment"]').first().waitFor({ state: 'detached' });
  // Live: a check-in committed now shows up without a reload, once.
  const checkIns = dashboard.locator('[data-testid="log-row"][data-stream="qr"]');
  const shown = await checkIns.count();
  expect((await checkIn()).status).toBe(200);
  await checkIns.nth(shown).waitFor();
  expect(await checkIns.count()).toBe(shown + 1);
  expect(await seriousAxeViolations(dashboard)).toEqual([]);
}, 120_000);

test('the front page at 390 x 844 leads to the dashboard', async () => {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await phone.newPage();
  const phoneErrors = collectPageErrors(page);
  await page.goto(`${t.baseUrl}/`);
  await page
    .getByRole('link', { name: 'OpenAPI' })
    .or(page.getByRole('heading', { name: /OpenAPI/ }))
    .first()
    .waitFor();
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'front-page-phone');
  await page.getByRole('link', { name: 'Operations dashboard' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await phone.close();
  expect(phoneErrors).toEqual([]);
}, 120_000);

test('after the test clock moved three days, the totals and chart go on by the service’s clock, with a new token', async () => {
  await dashboard.evaluate("location.hash = '#/'");
  await dashboard.getByTestId('total-PENDING').filter({ hasText: /^\d+$/ }).waitFor();
  const moved = await merchant.graphql(
    'mutation { advanceTestClock(input: { seconds: 259200 }) { testClock { now } userErrors { code } } }',
  );
  expect(moved.body.data.advanceTestClock.userErrors).toEqual([]);
  const now = moved.body.data.advanceTestClock.testClock.now as string;

  const later = new MerchantClient(t.baseUrl);
  const reference = await later.authorizedPayment(5_000, { reference: newReference('later') });
  expect((await later.modify(reference, 'cancel')).status).toBe(200);
  await feedRow(dashboard, reference, 'CANCELLED').waitFor();
  // A new day by the service's clock: the one payment of it is cancelled, not reserved.
  await dashboard.getByTestId('total-CANCELLED').filter({ hasText: /^1$/ }).waitFor();
  expect(await dashboard.getByTestId('total-RESERVED').textContent()).toBe('0');
  expect(await dashboard.getByTestId('totals-as-of').getAttribute('datetime')).toMatch(now.slice(0, 10));
  expect(await dashboard.getByRole('alert').count()).toBe(0);
  await dashboard.getByTestId('rate-chart').and(dashboard.locator('[aria-label^="3 events"]')).waitFor();
  await screenshot(dashboard, 'dashboard-clock-moved');
  // The token the page held ran out with the jump: the graph said 401 once, and the page signed in again.
  const refused = errors.splice(0);
  expect(refused.every((line) => /^response: 401 POST .*\/graphql/.test(line))).toBe(true);
}, 120_000);
