import type { Config } from '../config.js';
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
