// jest's global set-up: the pages' bundles must exist before a test app serves them (a no-op when up to date).
export default async function buildPagesForTests() {
  const { buildPages } = await import('./build-pages.mjs');
  await buildPages();
}
