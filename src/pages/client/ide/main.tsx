/** @jsxImportSource react */
import 'graphiql/style.css';
import './ide.css';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { pageData } from '../shared/page-data.js';
import { installEditorWorkers, type WorkerUrls } from './editor-workers.js';
import { shallowIntrospectionQuery } from './introspection.js';
import { FreshTokenButton, headersFor, type Prefill } from './fresh-token.js';

interface IdeData {
  prefill: Prefill | null;
  workers: WorkerUrls;
  /** PAYGRAPH_TRUSTED_DOCUMENTS=required: the registered documents, the only ones the graph runs (ide.page.ts). */
  trusted: { required: boolean; documents: { id: string; name: string | null; body: string }[] };
}

const REQUIRED_NOTE = `# This service runs registered documents only (PAYGRAPH_TRUSTED_DOCUMENTS=required).
# The tabs hold the registered documents: run one as it is and the IDE sends its id. Any other text is
# refused with PERSISTED_QUERY_ID_REQUIRED; register a manifest first (npm run paygraph -- register-documents).
`;

const DEFAULT_QUERY = `# Paygraph: one graph over payments, events and webhooks. Ctrl-Enter runs.
query RecentPayments {
  payments(first: 5) {
    edges { node { reference state amount { value currency } createdAt } }
  }
}

# Subscriptions run over graphql-ws on the same /graphql, with the headers below as connection_init.
subscription LiveEvents {
  paymentEvents { event { name reference timestamp } payment { state } }
}
`;

async function start(): Promise<void> {
  const data = pageData<IdeData>();
  const root = document.getElementById('graphiql');
  if (!data || !root) return;
  installEditorWorkers(data.workers);
  const graphFetcher = createGraphiQLFetcher({
    url: '/graphql',
    // The toolkit opens a graphql-ws client per subscription, with the headers editor's values as connection_init.
    subscriptionUrl: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    enableIncrementalDelivery: false,
  });
  const prefilled = data.prefill ? await headersFor(data.prefill) : {};
  const introspection = shallowIntrospectionQuery();
  // The first introspection runs before the headers editor exists: the prefilled headers are every request's defaults.
  // A registered document's text is sent as its id, which is what the graph takes where documents are required.
  const ids = new Map(data.trusted.documents.map((d) => [d.body.trim(), d.id]));
  const named = (params: Parameters<typeof graphFetcher>[0]) => {
    const id = ids.get(params.query.trim());
    return id === undefined ? params : ({ ...params, query: '', documentId: id } as typeof params);
  };
  const fetcher: typeof graphFetcher = (params, options) =>
    graphFetcher(params.operationName === 'IntrospectionQuery' ? { ...params, query: introspection } : named(params), {
      ...options,
      headers: { ...prefilled, ...(options?.headers ?? {}) },
    });
  const tabs = data.trusted.required ? [{ query: REQUIRED_NOTE }, ...data.trusted.documents.map((d) => ({ query: d.body }))] : undefined;
  const headers = JSON.stringify(prefilled, null, 2);
  root.textContent = '';
  createRoot(root).render(
    <GraphiQL
      fetcher={fetcher}
      defaultQuery={data.trusted.required ? REQUIRED_NOTE : DEFAULT_QUERY}
      defaultTabs={tabs}
      initialHeaders={headers}
      defaultEditorToolsVisibility="headers"
      shouldPersistHeaders={false}
    >
      <GraphiQL.Toolbar>
        {({ prettify, copy, merge }) => (
          <>
            {prettify}
            {merge}
            {copy}
            {data.prefill && <FreshTokenButton prefill={data.prefill} />}
          </>
        )}
      </GraphiQL.Toolbar>
    </GraphiQL>,
  );
}

void start();
