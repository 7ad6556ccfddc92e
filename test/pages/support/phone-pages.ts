import type { Browser, BrowserContext, Page } from 'playwright-core';
import { collectPageErrors, launchBrowser } from './browser.js';
import { CONDITION_DEADLINE_MS } from '../../support/deadlines.js';

/** The phone the wallet pages are made for. */
export const PHONE = { width: 390, height: 844 };

export interface PhonePages {
  /** This test's page, in a fresh phone-sized context. */
  readonly page: Page;
  /** What this test's page logged or threw so far; whatever is left in it at the end fails the test. */
  readonly errors: string[];
}

/**
 * For a test file of phone pages: one browser for the file (a connection to the run's chromium: `launchBrowser`) and,
 * for each test, a fresh phone-sized context and page whose errors (`collectPageErrors`) fail the test unless the test
 * takes the ones it expects out of the list.
 */
export function usePhonePages(): PhonePages {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let current: { page: Page; errors: string[] } | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    context = await browser!.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    context.setDefaultTimeout(CONDITION_DEADLINE_MS);
    const page = await context.newPage();
    current = { page, errors: collectPageErrors(page) };
  });
  afterEach(async () => {
    await context?.close();
    expect(current!.errors.splice(0)).toEqual([]);
  });
  return {
    get page() {
      return current!.page;
    },
    get errors() {
      return current!.errors;
    },
  };
}

/** The page fits the phone's width: nothing scrolls sideways. */
export async function expectNoHorizontalScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
}
