/** @database-free (a jest run that stops before any test starts: CI runs this file in one pass, jest.config.js) */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

/**
 * Issue 35: on a machine without Chromium, a test run that includes a browser test stops before anything starts,
 * with one line saying what to install, instead of every browser test file failing on its own.
 */
test('a run of a browser test without Chromium stops at once with one line', async () => {
  const jest = join(process.cwd(), 'node_modules/jest/bin/jest.js');
  const env: NodeJS.ProcessEnv = { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium' };
  delete env.PAYGRAPH_BROWSER_TESTS;
  delete env.PAYGRAPH_DATABASE_FREE_TESTS;
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--experimental-vm-modules', '--no-warnings', jest, '--maxWorkers=1', 'test/pages/ide.browser.test.ts'],
      { cwd: process.cwd(), env },
      (_, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
  expect(run.code).toBe(1);
  expect(run.stderr.trimEnd().split('\n')).toEqual([
    'paygraph: the browser tests need Chromium, and there is none at /nonexistent/chromium: apt-get install -y chromium (or set CHROMIUM_PATH), or run the rest with PAYGRAPH_BROWSER_TESTS=other-pass npm test',
  ]);
});
