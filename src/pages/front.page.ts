import type { Config } from '../config.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import type { RestInterface } from '../platform/rest/rest-interface.js';
import { pageAssets, type PageAssets } from './kit/assets.js';
import { escapeHtml } from './kit/html.js';
import { renderPage } from './kit/page-shell.js';
import { pageSecurityHeaders } from './kit/security-headers.js';

/** What a person opening the service's address finds: where the dashboard, the IDE and the API documents are. */
export function frontPage(assets: PageAssets, config: Pick<Config, 'env'>, interfaces: readonly RestInterface[]): string {
  const link = (href: string, text: string, note: string) =>
    `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a> <span class="muted">${escapeHtml(note)}</span></li>`;
  const documents = [...interfaces]
    .sort((a, b) => a.prefix.localeCompare(b.prefix))
    .map((i) => link(`${i.prefix}/openapi.json`, i.name, `${i.prefix}/openapi.json`));
  return renderPage(assets, {
    title: 'Paygraph',
    bundle: 'wallet',
    bodyClass: 'wallet',
    body: `<header class="bar"><p class="brand">Paygraph${config.env === 'test' ? ' test environment' : ''}</p></header>
<main id="main">
<h1>Paygraph</h1>
<h2>Pages</h2>
<ul class="links">
${link('/dashboard', 'Operations dashboard', 'live events, search, actions on a payment, webhook health')}
${config.env === 'test' ? link('/graphql', 'GraphQL IDE', 'the graph with a test merchant’s token prefilled') : ''}
</ul>
<h2>API documents (OpenAPI)</h2>
<ul class="links">
${documents.join('\n')}
</ul>
</main>`,
  });
}

/** `GET /`; the interfaces are read when asked, so it lists every one the service declared. */
export function frontPageRoute(
  config: Pick<Config, 'env'>,
  interfaces: () => readonly RestInterface[],
  assets: PageAssets = pageAssets,
): PageRoute {
  return {
    method: 'GET',
    pattern: '/',
    run: async (request) => ({ status: 200, headers: pageSecurityHeaders(request), body: frontPage(assets, config, interfaces()) }),
  };
}
