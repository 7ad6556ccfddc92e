// jest's global tear-down, after every test file, failed or not: the run's shared chromium (scripts/jest-global-setup.mjs)
// closes, its temporary profile with it.
export default async function tearDownTestRun() {
  await globalThis.paygraphSharedBrowser?.close();
  delete globalThis.paygraphSharedBrowser;
}
