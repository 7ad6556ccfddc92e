import type { Page } from 'playwright-core';
import { PspClient } from '../support/psp-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { eventually, PspEndpoint } from '../psp/psp-endpoint.js';
import { newIds } from '../psp/psp-fixture.js';
import { seriousAxeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { expectNoHorizontalScroll, usePhonePages } from './support/phone-pages.js';

// issue 10: the PSP landing page, where a person plays the wallet user of a PSP payment.
let t: TestApp;
let psp: PspClient;
let endpoint: PspEndpoint;
let page: Page;
let errors: string[];

const phone = usePhonePages();
const MSN = { 'Merchant-Serial-Number': '112233' };

beforeAll(async () => {
  t = await startTestApp();
  psp = new PspClient(t.baseUrl);
  endpoint = await new PspEndpoint().start();
}, 120_000);

afterAll(async () => {
  await endpoint?.close();
  await t?.close();
});

beforeEach(() => {
  ({ page, errors } = phone);
});

/** Marks the loaded document; the returned check is true while the same document is shown (no reload, no navigation). */
async function markPage(): Promise<() => Promise<boolean>> {
  await page.evaluate(() => ((globalThis as { loadMark?: number }).loadMark = 1));
  return () => page.evaluate(() => (globalThis as { loadMark?: number }).loadMark === 1);
}

async function initiate(): Promise<{ id: string; url: string; path: string }> {
  const ids = newIds();
  const path = `/landing/${ids.pspTransactionId}`;
  const res = await psp.request(
    'POST',
    '/psp/v3/psppayments/init',
    {
      ...ids,
      amount: 49_900,
      currency: 'NOK',
      paymentText: 'Årsabonnement',
      pspRedirectUrl: 'https://psp.example/return',
      makePaymentUrl: endpoint.url(path),
    },
    MSN,
  );
  expect(res.status).toBe(200);
  return { id: ids.pspTransactionId, url: res.body.vippsRedirectUrl, path };
}

test('the PSP landing page shows merchant, amount and text, passes axe on a phone, and approving sends the card token', async () => {
  const { id, url, path } = await initiate();
  await page.goto(url);
  await page.getByRole('heading', { name: 'PSP-kunde AS' }).waitFor();
  expect(await page.getByTestId('amount').textContent()).toMatch(/499,00/);
  await page.getByText('Årsabonnement').waitFor();
  await page.getByText('Payment method: your stored card').waitFor();
  await expectNoHorizontalScroll(page);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'psp-landing');

  await page.getByLabel('Your phone number (test user)').fill('91234567');
  const approved = page.waitForResponse((res) => res.url().includes('/wallet/psp/approve'));
  await page.getByRole('button', { name: 'Approve' }).click();
  // The approval's page shows ACCEPTED: the PSP has not answered the make-payment callback yet.
  expect(await (await approved).text()).toContain('Status: Approved');
  await page.getByRole('heading', { name: 'Payment approved', level: 1 }).waitFor();
  const loaded = await markPage();
  await eventually(() => endpoint.at(path).length === 1, 'the make-payment callback');
  expect(endpoint.at(path)[0]!.body).toMatchObject({ pspTransactionId: id, paymentState: 'ACCEPTED', paymentInstrument: 'TOKEN' });
  // The PSP's answer made the payment RESERVED, and the page shows it live.
  await page.getByText('Status: Approved, the amount is reserved on your card').waitFor();
  await page.getByRole('link', { name: 'Back to PSP-kunde AS' }).waitFor();
  expect(await loaded()).toBe(true);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'psp-landing-approved');
});

test('approved elsewhere (the PSP’s test approve), the open page shows it live and offers the way back', async () => {
  const { id, url } = await initiate();
  await page.goto(url);
  await page.getByText('Status: Waiting for your approval').waitFor();
  expect(await page.getByRole('link', { name: 'Back to PSP-kunde AS' }).isVisible()).toBe(false);
  const loaded = await markPage();
  const approved = await psp.request(
    'POST',
    `/psp/v3/integration-test/psppayments/${id}/approve`,
    { customerPhoneNumber: '91234567', token: new URL(url).searchParams.get('token') },
    MSN,
  );
  expect(approved.status).toBe(200);
  // ACCEPTED, then RESERVED once the PSP answered the callback: the page follows until the state is final.
  await page.getByText('Status: Approved, the amount is reserved on your card').waitFor();
  await page.getByRole('button', { name: 'Approve' }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Back to PSP-kunde AS' }).waitFor();
  expect(await page.getByRole('status').filter({ hasText: 'Status:' }).getAttribute('aria-live')).toBe('polite');
  expect(await loaded()).toBe(true);
  expect(await seriousAxeViolations(page)).toEqual([]);
});

test('rejecting on the PSP landing page tells the PSP USER_CANCEL', async () => {
  const { url, path } = await initiate();
  await page.goto(url);
  await page.getByRole('button', { name: 'Reject' }).click();
  await page.getByRole('heading', { name: 'Payment cancelled', level: 1 }).waitFor();
  await page.getByText('Status: Cancelled').waitFor();
  await page.getByText('You cancelled this payment. No money was taken.').waitFor();
  expect(await page.getByTestId('summary').getAttribute('data-tone')).toBe('failure');
  await screenshot(page, 'psp-landing-cancelled');
  expect(await seriousAxeViolations(page)).toEqual([]);
  await eventually(() => endpoint.at(path).length === 1, 'the make-payment callback');
  expect(endpoint.at(path)[0]!.body.paymentState).toBe('USER_CANCEL');
});

test('an unknown phone number is told on the page, and the payment still awaits the user', async () => {
  const { url } = await initiate();
  await page.goto(url);
  await page.getByLabel('Your phone number (test user)').fill('11111111');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('alert').getByText('No test user has this phone number.').waitFor();
  await page.getByRole('button', { name: 'Approve' }).waitFor();
  expect(await seriousAxeViolations(page)).toEqual([]);
  // The refusal is this page's answer (400 with the message shown), not a failure of the page.
  const expected = errors.filter((e) => /^response: 400 POST .*\/wallet\/psp\/approve/.test(e));
  expect(expected.length).toBeGreaterThan(0);
  errors.splice(0, errors.length, ...errors.filter((e) => !expected.includes(e)));
});

// Last in the file: it moves the PSP's sales unit's clock ten minutes on.
test('left for ten minutes (the test clock), the open page shows the payment timed out', async () => {
  const { url, path } = await initiate();
  await page.goto(url);
  await page.getByText('Status: Waiting for your approval').waitFor();
  const loaded = await markPage();
  // The PSP moves the clock of the sales unit the payment is for; the page goes by that unit's time.
  const moved = await psp.graphql('mutation { advanceTestClock(input: { seconds: 601 }) { userErrors { code } } }', {}, MSN);
  expect(moved.body.data.advanceTestClock.userErrors).toEqual([]);
  await page.getByText('Status: Expired').waitFor();
  await page.getByRole('heading', { name: 'Payment expired', level: 1 }).waitFor();
  await page.getByText('The payment was not approved in time and has expired.').waitFor();
  // Nothing was taken from the card: the page no longer names it.
  expect(await page.getByTestId('card-note').isVisible()).toBe(false);
  expect(await page.getByTestId('summary').getAttribute('data-tone')).toBe('failure');
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'psp-landing-expired');
  await page.getByRole('button', { name: 'Reject' }).waitFor({ state: 'detached' });
  expect(await loaded()).toBe(true);
  await eventually(() => endpoint.at(path).length === 1, 'the make-payment callback');
  expect(endpoint.at(path)[0]!.body.paymentState).toBe('TIMEOUT');
});
