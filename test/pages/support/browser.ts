import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (`.ci/run` installs it): the tests never download a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium)`);
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

/** Screenshots land in test-artifacts/ (ignored by git), one per page and state worth looking at. */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Fails the test on anything a page logs as an error or throws: a CSP refusal, a missing asset, a script error.
 * Returns the list, filled as the page runs.
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A failed response is reported (with its URL) by the response listener.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) {
      const line = `response: ${response.status()} ${response.request().method()} ${response.url()}`;
      errors.push(line);
      void response.text().then(
        (body) => errors.push(`${line}: ${body.slice(0, 300)}`),
        () => undefined,
      );
    }
  });
  page.on('requestfailed', (request) => {
    // A subscription socket closed on purpose when the page goes away is not a failure of the page.
    // Nor is a request cut short by leaving the page (the landing page's state request when a form is sent).
    if (request.failure()?.errorText === 'net::ERR_ABORTED') return;
    if (!request.url().startsWith('ws')) errors.push(`requestfailed: ${request.url()} ${request.failure()?.errorText ?? ''}`);
  });
  return errors;
}
