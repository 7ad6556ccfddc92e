import type { Services } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpRequest, HttpResponse } from '../platform/rest/http-types.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { ASSET_PREFIX, pageAssets, type PageAssets } from './kit/assets.js';
import { dashboardPage } from './dashboard.page.js';
import { idePage, type IdeTrustedDocuments } from './ide.page.js';
import { forkEm } from '../platform/db/orm.js';
import { listTrustedDocuments } from '../platform/graph/trusted-documents.js';
import { pageSecurityHeaders } from './kit/security-headers.js';

/** The operations dashboard and the bundles every page loads. */
export function pageRoutes(services: Services, assets: PageAssets = pageAssets): PageRoute[] {
  const route = (method: PageRoute['method'], pattern: string, run: PageRoute['run']): PageRoute => ({ method, pattern, run });
  return [
    route('GET', '/dashboard', async (request) => ({
      status: 200,
      headers: pageSecurityHeaders(request, { webSocket: true }),
      body: dashboardPage(assets, services.config),
    })),
    // Reached only by a browser asking for HTML (graphql-ide-request.ts): the HTTP server sends every other /graphql request to the graph.
    route('GET', '/graphql', async (request) => graphQLIdeResponse(services, assets, request)),
    route('GET', `${ASSET_PREFIX}{file}`, async (request) => {
      const response = await assets.serve(request.params.file ?? '', header(request, 'accept-encoding'));
      if (!response) throw new AppError('NOT_FOUND', `No asset ${request.path}`);
      return response;
    }),
  ];
}

/**
 * The IDE on GET /graphql for a browser, in the test environment. In production the page does not exist: a 404 in
 * the graph's error shape.
 */
export async function graphQLIdeResponse(services: Services, assets: PageAssets, request: HttpRequest): Promise<HttpResponse> {
  if (services.config.env !== 'test') {
    return {
      status: 404,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: {
        errors: [
          {
            message: 'There is no GraphQL IDE in production: POST queries to /graphql',
            extensions: { code: 'NOT_FOUND', traceId: request.traceId },
          },
        ],
      },
    };
  }
  return {
    status: 200,
    headers: pageSecurityHeaders(request, { webSocket: true, inlineStyles: true, workers: true }),
    body: idePage(assets, services.config, await ideTrustedDocuments(services)),
  };
}

function header(request: HttpRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** With trusted documents required, the IDE says so and offers the registered documents (the first 100 by name). */
async function ideTrustedDocuments(services: Services): Promise<IdeTrustedDocuments> {
  if (services.config.trustedDocuments !== 'required') return { required: false, documents: [] };
  return { required: true, documents: await listTrustedDocuments(forkEm(services.orm), 100) };
}
