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
}

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
  const fetcher: typeof graphFetcher = (params, options) =>
    graphFetcher(params.operationName === 'IntrospectionQuery' ? { ...params, query: introspection } : params, {
      ...options,
      headers: { ...prefilled, ...(options?.headers ?? {}) },
    });
  const headers = JSON.stringify(prefilled, null, 2);
  root.textContent = '';
  createRoot(root).render(
    <GraphiQL
      fetcher={fetcher}
      defaultQuery={DEFAULT_QUERY}
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
