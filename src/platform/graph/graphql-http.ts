import { ApolloServer, HeaderMap, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import { GRAPH_API_AUTH, GRAPH_API_HEADERS } from '../auth/merchant-api.js';
import { createRequestContext } from '../auth/request-context.js';
import type { Services } from '../context.js';
import { AppError } from '../errors/app-error.js';
import { clientAddress } from '../rate-limit/client-address.js';
import { jsonBody } from '../rest/body.js';
import { requestHeaders } from '../rest/headers.js';
import type { HttpRequest, HttpResponse } from '../rest/http-types.js';
import { graphAdmission, type Admission, type Caller, type GraphAdmission } from './admission.js';
import type { GraphQLContext } from './graphql-context.js';
import { unavailableError } from './database-unavailable.js';
import { operationNameOf } from './operation-name.js';
import { documentIdOf } from './trusted-documents.js';

/** The admission of each Apollo server: it answers the requests the front refused, without Apollo. */
const admissions = new WeakMap<ApolloServer<GraphQLContext>, GraphAdmission>();

export interface GraphQLServerOptions {
  /** More plugins beside the admission (tests: one that counts the operations Apollo Server runs). */
  plugins?: readonly ApolloServerPlugin<GraphQLContext>[];
}

/**
 * POST and GET /graphql: every query and mutation runs through Apollo Server's own request pipeline, so each of its
 * plugins sees every operation. The pipeline is kept cheap inside its own surface:
 * - its document cache (the default, per query text) keeps each parsed document, and the admission keeps its
 *   verdict with that document, so a repeated query is neither parsed, bounded, validated nor measured again;
 * - Apollo's own validation is off (`dangerouslyDisableValidation`): the admission validates, because the work a
 *   document asks of validation is bounded first (document-bounds.ts), which Apollo's pipeline has no hook for;
 *   nothing runs unvalidated, since the admission answers every operation before it runs (`responseForOperation`);
 * - one plugin with one listener for every request (no closure per request), no cache-control plugin (it hooks
 *   every resolved field for an HTTP cache that per-merchant answers never use);
 * - the content type is set by the admission for the Accept values every client sends (none, `*` `/` `*`,
 *   `application/json`), so Apollo does not negotiate it per request;
 * - answers are compact JSON (`stringifyResult`), not Apollo's pretty-printed default.
 */
export async function createGraphQLServer(
  services: Services,
  schema: GraphQLSchema,
  options: GraphQLServerOptions = {},
): Promise<ApolloServer<GraphQLContext>> {
  const admission = graphAdmission(services, schema);
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    // Introspection and suggestions are governed by the admission's `schemaDisclosure`, the rule every transport
    // applies, rather than by Apollo's own switches, which the socket would not see.
    introspection: true,
    hideSchemaDetailsFromClientErrors: false,
    includeStacktraceInErrorResponses: false,
    csrfPrevention: true,
    parseOptions: { maxTokens: services.config.graphqlLimits.maxTokens },
    dangerouslyDisableValidation: true,
    // Automatic persisted queries register any text a client sends with its hash: with trusted documents required,
    // only an operator registers documents, so Apollo's registration is off (a named document's text is put in the
    // request before Apollo sees it: handleGraphQLRequest).
    ...(services.config.trustedDocuments === 'required' ? { persistedQueries: false as const } : {}),
    formatError: admission.formatClientError,
    stringifyResult: (result) => JSON.stringify(result),
    plugins: [ApolloServerPluginCacheControlDisabled(), admissionPlugin(admission), ...(options.plugins ?? [])],
  });
  admissions.set(apollo, admission);
  await apollo.start();
  return apollo;
}

/** The admission, called by Apollo Server once the document is parsed (its cache or its parser), before anything runs. */
function admissionPlugin(admission: GraphAdmission): ApolloServerPlugin<GraphQLContext> {
  // Apollo hands every hook of a request the same copy of its context.
  const admitted = new WeakSet<GraphQLContext>();
  const listener: GraphQLRequestListener<GraphQLContext> = {
    responseForOperation: async ({ contextValue, source, document, request, response }) => {
      const verdict = await admission.admit({
        transport: 'http',
        caller: callerOf(contextValue),
        source,
        document,
        operationName: request.operationName,
        variables: request.variables,
        documentId: contextValue.documentId,
      });
      admitted.add(contextValue);
      for (const [name, value] of Object.entries(verdict.headers)) response.http.headers.set(name, value);
      if (!response.http.headers.has('content-type')) {
        const type = jsonAnswerType(request.http?.headers.get('accept'));
        if (type) response.http.headers.set('content-type', type);
      }
      if (verdict.admitted) return null;
      return {
        http: { status: verdict.status, headers: new HeaderMap() },
        body: {
          kind: 'single',
          singleResult: {
            ...('data' in verdict ? { data: verdict.data } : {}),
            errors: verdict.errors.map((error) => admission.clientError(error)),
          },
        },
      };
    },
    // Apollo refused the request before the admission saw it (the document did not parse): charged all the same.
    didEncounterErrors: async ({ contextValue, response }) => {
      if (admitted.has(contextValue)) return;
      admitted.add(contextValue);
      const fields = await admission.chargeUnadmitted(callerOf(contextValue));
      for (const [name, value] of Object.entries(fields)) response.http.headers.set(name, value);
    },
  };
  return { requestDidStart: async () => listener };
}

function callerOf(context: GraphQLContext): Caller {
  return { principal: context.request.principal, scope: context.request.scope, address: context.address ?? '' };
}

const JSON_ANSWER = 'application/json; charset=utf-8';

/** Apollo's choice for these Accept values (chooseContentTypeForSingleResultResponse), without its negotiator. */
function jsonAnswerType(accept: string | undefined): string | undefined {
  const value = accept?.trim() ?? '';
  return value === '' || value === '*/*' || value === 'application/json' ? JSON_ANSWER : undefined;
}

/**
 * `/graphql` over HTTP, with the same request context, credentials and header rules as the merchant REST APIs. A
 * request the front refuses is answered by the admission too (its address is charged first); a body that is not
 * JSON is answered in the graph's error shape.
 */
export async function handleGraphQLRequest(
  services: Services,
  apollo: ApolloServer<GraphQLContext>,
  request: HttpRequest,
): Promise<HttpResponse> {
  const admission = admissions.get(apollo)!;
  const caller = await graphCallerOf(services, request, admission);
  if ('response' in caller) return caller.response;
  if ('refused' in caller) return graphErrorResponse(admission, caller.refused, request);
  const { context } = caller;
  let body: unknown;
  if (request.method === 'POST') {
    try {
      body = jsonBody(request, { numberTexts: false });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return badGraphRequest(request, error.message);
    }
    request.graphOperation = operationNameOf(body);
  }
  const named = await namedDocument(admission, request.method === 'POST' ? body : paramsOfSearch(request.query));
  if (named) {
    if ('refused' in named) {
      // An id no document has: refused by the admission, as Apollo cannot run a request without its text.
      const refused = await admission.admit({ transport: 'http', caller: callerOf(context), source: undefined, documentId: named.refused });
      return graphErrorResponse(admission, refused, request);
    }
    context.documentId = named.documentId;
    if (request.method === 'POST') body = named.params;
    else request.query = searchOf(named.params);
  }
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: request.method,
      headers,
      search: request.query.size > 0 ? `?${request.query.toString()}` : '',
      body,
    },
    context: async () => context,
  });
  const out: Record<string, string> = {};
  for (const [name, value] of response.headers) out[name] = value;
  if (response.body.kind !== 'complete') throw new Error('Incremental delivery is not enabled');
  return { status: response.status ?? 200, headers: out, body: response.body.string };
}

type GraphParams = Record<string, unknown>;

/**
 * A request naming a registered document (trusted-documents.ts) is handed to Apollo Server with the document's text
 * as its query, without the naming fields: Apollo knows no `documentId`, and its own persisted queries would look the
 * hash up in their cache (or refuse it, when off). An id that names no document is refused, except an Apollo hash
 * while trusted documents are optional: that stays Apollo's automatic persisted query, as before.
 */
async function namedDocument(
  admission: GraphAdmission,
  params: unknown,
): Promise<{ documentId: string; params: GraphParams } | { refused: string } | undefined> {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const record = params as GraphParams;
  const documentId = documentIdOf(record);
  if (documentId === undefined) return undefined;
  const body = await admission.documents.bodyOf(documentId);
  if (body === undefined) {
    const apq = record.documentId === undefined;
    return apq && !admission.documentsRequired ? undefined : { refused: documentId };
  }
  const { documentId: _id, extensions, ...rest } = record;
  const { persistedQuery: _persisted, ...otherExtensions } = (extensions ?? {}) as Record<string, unknown>;
  return {
    documentId,
    // An empty query beside the id (as graphql-ws needs one, some clients send it on HTTP too) is no text.
    params: {
      ...rest,
      query: typeof rest.query === 'string' && rest.query !== '' ? rest.query : body,
      ...(Object.keys(otherExtensions).length > 0 ? { extensions: otherExtensions } : {}),
    },
  };
}

/** A GET request's parameters (Apollo reads `extensions` and `variables` as JSON text), as a body would carry them. */
function paramsOfSearch(query: URLSearchParams): GraphParams | undefined {
  if (!query.has('documentId') && !query.has('extensions')) return undefined;
  let extensions: unknown;
  try {
    extensions = query.has('extensions') ? JSON.parse(query.get('extensions')!) : undefined;
  } catch {
    return undefined; // Apollo answers a malformed parameter itself
  }
  const params: GraphParams = {};
  for (const [name, value] of query) params[name] = value;
  return { ...params, extensions };
}

function searchOf(params: GraphParams): URLSearchParams {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return search;
}

/**
 * Who sends a graph request over HTTP (POST /graphql, and the HTTP subscription transports): the request context of
 * its credentials, by the same header rules as the merchant REST APIs. A request the front refuses is refused by the
 * admission (its address is charged first), which each transport answers in its own format; the database being down
 * answers 503.
 */
export async function graphCallerOf(
  services: Services,
  request: HttpRequest,
  admission: GraphAdmission,
): Promise<{ context: GraphQLContext } | { refused: Extract<Admission, { admitted: false }> } | { response: HttpResponse }> {
  const address = clientAddress(request.remoteAddress, request.headers['x-forwarded-for'], services.config.rateLimits.trustedProxies);
  try {
    const { ctx } = await createRequestContext(services, requestHeaders(request), {
      traceId: request.traceId,
      auth: GRAPH_API_AUTH,
      headers: GRAPH_API_HEADERS,
    });
    request.authenticated = true;
    return { context: { services, request: ctx, address } };
  } catch (error) {
    const unavailable = unavailableError(error, undefined);
    if (unavailable) {
      const retryAfter = String(unavailable.extensions!.retryAfterSeconds);
      const body = { errors: [{ ...unavailable, extensions: { ...unavailable.extensions, traceId: request.traceId } }] };
      return { response: { status: 503, headers: { 'content-type': 'application/json', 'retry-after': retryAfter }, body } };
    }
    if (!(error instanceof AppError)) throw error;
    const refused = await admission.admit({ transport: 'http', caller: { refusal: error, address }, source: undefined });
    if (refused.admitted) throw new Error('A refused caller was admitted');
    return { refused };
  }
}

/** A request the graph cannot read (its body is not JSON, or not a GraphQL request): 400 in the graph's error shape. */
export function badGraphRequest(request: HttpRequest, message: string): HttpResponse {
  return {
    status: 400,
    headers: { 'content-type': JSON_ANSWER },
    body: { errors: [{ message, extensions: { code: 'BAD_REQUEST', traceId: request.traceId } }] },
  };
}

/** A refusal answered without Apollo Server: the graph's error shape, with the trace id. */
export function graphErrorResponse(admission: GraphAdmission, refusal: Admission, request: HttpRequest): HttpResponse {
  if (refusal.admitted) throw new Error('A refused caller was admitted');
  const errors = refusal.errors.map((error) => {
    const formatted = admission.clientError(error);
    return { ...formatted, extensions: { ...formatted.extensions, traceId: request.traceId } };
  });
  return { status: refusal.status, headers: { 'content-type': JSON_ANSWER, ...refusal.headers }, body: { errors } };
}
