import type { PageAssets, PageName } from './assets.js';
import { escapeHtml, jsonIsland } from './html.js';

export interface PageShell {
  title: string;
  /** The bundle whose script (and style) the page loads. */
  bundle: PageName;
  /** Server-rendered markup; for the single-page tools, what shows before the script runs. */
  body: string;
  /** Handed to the script in a JSON data island (#page-data). */
  data?: unknown;
  bodyClass?: string;
}

/** An HTML document loading only our own hashed bundles: no inline script, nothing from another origin. */
export function renderPage(assets: PageAssets, page: PageShell): string {
  const entry = assets.entry(page.bundle);
  const preloads = entry.imports.map((file) => `<link rel="modulepreload" href="${escapeHtml(assets.url(file))}">`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(page.title)}</title>
${entry.style ? `<link rel="stylesheet" href="${escapeHtml(assets.url(entry.style))}">` : ''}${preloads}
<script type="module" src="${escapeHtml(assets.url(entry.script))}"></script>
</head>
<body${page.bodyClass ? ` class="${escapeHtml(page.bodyClass)}"` : ''}>
${page.body}
${page.data === undefined ? '' : jsonIsland('page-data', page.data)}
</body></html>`;
}
