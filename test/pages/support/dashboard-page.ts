import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';

/** Opens the dashboard and signs in with the prefilled merchant A credentials; resolves once the feed is live. */
export async function openDashboard(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('connection').filter({ hasText: 'Live' }).waitFor();
  expect(await page.getByTestId('sales-unit').inputValue()).toBe('123456');
}

export function feedRow(page: Page, reference: string, event?: string) {
  const rows = page.locator(`[data-testid="feed-row"][data-reference="${reference}"]`);
  return event ? rows.and(page.locator(`[data-event="${event}"]`)) : rows;
}
