import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { useTestApp } from '../support/app-fixture.js';
import { mgmt, orderBody } from '../management/management-support.js';
import { seriousAxeViolations } from './support/axe.js';
import { screenshot } from './support/browser.js';
import { expectNoHorizontalScroll, usePhonePages } from './support/phone-pages.js';

// issue 22 point 5: the product-order prefill page a partner's prefillUrl opens, on a phone.
const t = useTestApp({ runJobs: false });
const phone = usePhonePages();
let page: Page;

beforeEach(() => {
  ({ page } = phone);
});

async function prefillUrl(overrides: Record<string, unknown>): Promise<string> {
  const res = await mgmt(t.partner, 'POST', '/product-orders', orderBody(overrides), { 'Idempotency-Key': randomUUID() });
  expect(res.status).toBe(201);
  return res.body.prefillUrl.replace(/^https?:\/\/[^/]+/, t.baseUrl);
}

test('the merchant reads the order in plain words and fills in only what the partner left out, then submits', async () => {
  // The partner sent the website, but not the compliance data.
  await page.goto(await prefillUrl({ complianceData: undefined }));
  await page.getByRole('heading', { name: 'Check your product order', level: 1 }).waitFor();
  expect(await page.getByTestId('company').textContent()).toBe('Nytt Firma AS (org. no. 920000029)');
  expect(await page.getByTestId('product').textContent()).toBe('Payments online');
  expect(await page.getByTestId('price-package').textContent()).not.toMatch(/^[0-9a-f-]{36}$/);
  expect(await page.getByTestId('website').textContent()).toBe('https://nyttfirma.no');
  expect(await page.getByLabel('Website address').count()).toBe(0);
  await expectNoHorizontalScroll(page);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'prefill');

  await page.getByRole('radio', { name: 'Yes, less than 10% of our sales' }).check();
  await page.getByRole('button', { name: 'Submit order' }).click();
  await page.getByRole('heading', { name: 'Order submitted', level: 1 }).waitFor();
  await page.getByText('Submitted: your sales unit is ready.').waitFor();
  expect(await page.locator('[data-msn]').textContent()).toMatch(/^\d+$/);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, 'prefill-submitted');
});
