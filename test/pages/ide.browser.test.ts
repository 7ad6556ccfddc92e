import type { Browser, Page } from 'playwright-core';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { collectPageErrors, launchBrowser, screenshot } from './support/browser.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

let t: TestApp;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.setDefaultTimeout(CONDITION_DEADLINE_MS);
  page = await context.newPage();
  errors = collectPageErrors(page);
  await page.goto(`${t.baseUrl}/graphql`);
  await page.locator('.graphiql-container').waitFor();
  await page.locator('.graphiql-query-editor .monaco-editor').waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

afterEach(() => {
  expect(errors.splice(0)).toEqual([]);
});

/** Replaces the operation in the query editor (Monaco) and runs it. */
async function run(operation: string): Promise<void> {
  const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(operation);
  // GraphiQL takes the editor's text into its state after a debounce; run before that, it can run the previous text,
  // or pick its transport from the previous operation (a subscription then went out over HTTP).
  await page.waitForTimeout(500);
  await page.getByRole('button', { name: /Execute query/ }).click();
}

function response() {
  return page.locator('.graphiql-response');
}

test('the IDE comes from our own assets with merchant A headers prefilled, and runs a query', async () => {
  const reference = newReference('ide');
  expect((await new MerchantClient(t.baseUrl).createPayment({ reference })).status).toBe(201);
  await run(`query { payment(reference: "${reference}") { reference state } }`);
  await response().filter({ hasText: reference }).waitFor();
  await response().filter({ hasText: '"state": "CREATED"' }).waitFor();
  await screenshot(page, 'ide-query');
});

test('the IDE runs a subscription over graphql-ws', async () => {
  const reference = newReference('ide-sub');
  await run(`subscription { paymentEvents(reference: "${reference}") { event { name reference } payment { state } } }`);
  // The subscription is live once the server holds it; the payment is created after that.
  await page.getByRole('button', { name: /Stop/ }).waitFor();
  for (const until = Date.now() + 15_000; t.app.services.events.subscriberCount === 0 && Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(t.app.services.events.subscriberCount).toBeGreaterThan(0);
  const merchant = new MerchantClient(t.baseUrl);
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  await response().filter({ hasText: reference }).waitFor();
  await response().filter({ hasText: '"name": "CREATED"' }).waitFor();
  await screenshot(page, 'ide-subscription');
  await page.getByRole('button', { name: /Stop/ }).click();
});

test('a button fetches a fresh token into the headers', async () => {
  const headers = page.locator('.monaco-editor').filter({ hasText: 'Merchant-Serial-Number' });
  await headers.waitFor();
  const issued = page.waitForResponse((r) => r.url().endsWith('/accesstoken/get') && r.status() === 200);
  await page.getByRole('button', { name: 'Fetch a fresh access token' }).click();
  const { access_token: token } = (await (await issued).json()) as { access_token: string };
  // Monaco renders long lines in parts; the token's first characters show as typed.
  await headers.filter({ hasText: token.slice(0, 20) }).waitFor();
  await screenshot(page, 'ide-headers');
});
