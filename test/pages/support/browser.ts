import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserServer, type Page } from 'playwright-core';

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

/**
 * Where the run's shared chromium listens (a `chromium.launchServer()` websocket), set by jest's global set-up
 * (scripts/jest-global-setup.mjs) when the run has a browser test; the workers it starts inherit it.
 */
export const SHARED_BROWSER_VARIABLE = 'PAYGRAPH_BROWSER_ENDPOINT';

/**
 * A test file's browser. In a jest run with browser tests it is a connection to the run's one chromium (a launch and
 * close cost about 2.5 s of CPU, and 16 files each paid it): the file sees only the contexts it makes, and its
 * `close()` closes them and disconnects, so no cookie or storage passes from one file to the next. Anywhere else (no
 * shared chromium) it launches one of its own, and `close()` ends it. Downloads are read with
 * `download.createReadStream()`: `download.path()` throws on a connected browser.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`No chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium)`);
  const shared = process.env[SHARED_BROWSER_VARIABLE];
  if (shared) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

/**
 * The run's shared chromium (jest's global set-up starts it, its global tear-down closes it). Should the jest process
 * die without its tear-down, chromium goes with it: playwright closes it on exit, SIGINT, SIGTERM and SIGHUP, and
 * chromium leaves when the pipe to its parent closes (SIGKILL).
 */
export async function launchSharedBrowser(): Promise<BrowserServer> {
  return chromium.launchServer({ executablePath: CHROMIUM, args: FLAGS, host: '127.0.0.1' });
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
