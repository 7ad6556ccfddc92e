import type { Config } from '../config.js';
import type { PageAssets } from './kit/assets.js';
import { renderPage } from './kit/page-shell.js';
import { prefilledCredentials } from './test-credentials.js';

/** What the IDE says of trusted documents: whether they are required, and then the registered ones it offers. */
export interface IdeTrustedDocuments {
  required: boolean;
  documents: { id: string; name: string | null; body: string }[];
}

/** GraphiQL over our own bundle: its editor's workers are our own hashed files too. */
export function idePage(assets: PageAssets, config: Pick<Config, 'env'>, trusted: IdeTrustedDocuments): string {
  const worker = (name: 'editor.worker' | 'json.worker' | 'graphql.worker') => assets.url(assets.entry(name).script);
  return renderPage(assets, {
    title: 'Paygraph GraphQL IDE',
    bundle: 'ide',
    bodyClass: 'ide',
    body: '<div id="graphiql" class="graphiql-root"><noscript>The GraphQL IDE needs JavaScript.</noscript></div>',
    data: {
      prefill: prefilledCredentials(config),
      workers: { editor: worker('editor.worker'), json: worker('json.worker'), graphql: worker('graphql.worker') },
      trusted,
    },
  });
}
