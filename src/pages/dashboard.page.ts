import type { Config } from '../config.js';
import type { Em } from '../platform/db/orm.js';
import { insertTrustedDocuments, parseManifest } from '../platform/graph/trusted-documents.js';
import { dashboardDocuments } from './dashboard-documents.js';
import type { PageAssets } from './kit/assets.js';
import { renderPage } from './kit/page-shell.js';
import { prefilledCredentials } from './test-credentials.js';

/** Everything the dashboard shows comes from the graph; the page itself carries only the sign-in defaults. */
export function dashboardPage(assets: PageAssets, config: Pick<Config, 'env'>): string {
  return renderPage(assets, {
    title: 'Paygraph operations',
    bundle: 'dashboard',
    body: '<div id="app"><noscript>The operations dashboard needs JavaScript.</noscript></div>',
    data: { env: config.env, prefill: prefilledCredentials(config) },
  });
}

/**
 * Registers the dashboard's documents as trusted documents, so the dashboard works where they are required
 * (README, "Trusted documents"). Run at every start, in every environment: idempotent, and several instances may
 * start at once (an id registered meanwhile is kept).
 */
export async function registerDashboardDocuments(em: Em, now: Date): Promise<void> {
  const manifest = parseManifest(JSON.stringify(Object.fromEntries(dashboardDocuments())));
  await insertTrustedDocuments(em, manifest, 'dashboard', now);
}
