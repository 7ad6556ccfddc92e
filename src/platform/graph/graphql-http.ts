import { ApolloServer, HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, specifiedRules, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { GRAPH_API_AUTH, GRAPH_API_HEADERS } from '../auth/merchant-api.js';
import { createRequestContext } from '../auth/request-context.js';
import type { Services } from '../context.js';
import { AppError } from '../errors/app-error.js';
import { jsonBody } from '../rest/body.js';
import { requestHeaders } from '../rest/headers.js';
import type { HttpRequest, HttpResponse } from '../rest/http-types.js';
import { logError } from '../../log.js';
import { DirectExecution, type ErrorFormatter } from './direct-execution.js';
import type { GraphQLContext } from './graphql-context.js';
import { controlCharacterError } from './input-text.js';
import { operationNameOf } from './operation-name.js';
import { PreparedDocuments } from './prepared-documents.js';
import { forbiddenFieldsError, refusedRootFields } from './principal-fields.js';
import { rateLimitedByCost } from './rate-limited.js';
import { documentTooLarge, parseLimits, queryLimitRules } from './query-limits.js';
import { schemaDisclosure } from './schema.js';

/**
 * Requests the direct path serves without Apollo's pipeline (direct-execution.ts), by the Apollo server whose
 * schema, rules and error format it shares.
 */
const directExecutions = new WeakMap<ApolloServer<GraphQLContext>, DirectExecution>();

/** The WebSocket face serves the same executable schema. */
export async function createGraphQLServer(services: Services, schema: GraphQLSchema): Promise<ApolloServer<GraphQLContext>> {
  const disclosure = schemaDisclosure(services.config.env === 'production');
  const validationRules = [
    ...queryLimitRules(services.config.graphqlLimits, { introspectionAllowed: !disclosure.refusesIntrospection }),
    ...disclosure.rules,
  ];
  const parseOptions = parseLimits(services.config.graphqlLimits);
  const formatError: ErrorFormatter = (formatted, error) => disclosure.formatError(scrubInternal(formatted, error));
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    // Introspection and suggestions are governed by `schemaDisclosure`, the rule graphql-ws applies too, rather
    // than by Apollo's own switches, which the socket would not see.
    introspection: true,
    hideSchemaDetailsFromClientErrors: false,
    includeStacktraceInErrorResponses: false,
    csrfPrevention: true,
    parseOptions,
    validationRules,
    formatError,
    // Apollo pretty-prints every answer by default; programs read these, and the indentation only adds bytes to
    // serialize, send and parse.
    stringifyResult: (result) => JSON.stringify(result),
    // The cache-control plugin hooks every resolved field to compute cache hints for an HTTP cache that
    // authenticated, per-merchant answers never use; without it a payment query costs measurably less.
    plugins: [
      ApolloServerPluginCacheControlDisabled(),
      subscriptionsOnTheSocketOnly,
      principalRootFields,
      inputWithoutControlCharacters,
      rateLimitedByCost,
    ],
  });
  // Validated as Apollo validates: graphql-js's rules, then ours.
  const documents = new PreparedDocuments(schema, [...specifiedRules, ...validationRules], parseOptions);
  directExecutions.set(apollo, new DirectExecution(schema, documents, formatError));
  await apollo.start();
  return apollo;
}

/**
 * Over HTTP a subscription would run its resolver once with no event to resolve; it belongs on the graphql-ws
 * socket at the same path, and the client is told so, as the socket tells a query to come here.
 */
const subscriptionsOnTheSocketOnly: ApolloServerPlugin<GraphQLContext> = {
  requestDidStart: async () => ({
    didResolveOperation: async ({ operation }) => {
      if (operation?.operation !== 'subscription') return;
      throw new GraphQLError('Subscriptions are served over graphql-ws (subprotocol graphql-transport-ws) on /graphql', {
        extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
      });
    },
  }),
};

/** A PSP and the operator may use only their own root fields (principal-fields.ts): refused before any resolver runs. */
const principalRootFields: ApolloServerPlugin<GraphQLContext> = {
  requestDidStart: async ({ contextValue, schema }) => ({
    didResolveOperation: async ({ operation }) => {
      const refused = operation ? refusedRootFields(schema, contextValue.request.principal, operation) : [];
      if (refused.length > 0) throw forbiddenFieldsError(refused);
    },
  }),
};

/** No control character in any input string (input-text.ts): refused before any resolver runs. */
const inputWithoutControlCharacters: ApolloServerPlugin<GraphQLContext> = {
  requestDidStart: async () => ({
    didResolveOperation: async ({ document, request }) => {
      const refusal = controlCharacterError(document, request.variables);
      if (refusal) throw refusal;
    },
  }),
};

/** Internal errors reach the log with their detail; the client sees a code and the trace id only. */
function scrubInternal(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  if (formatted.extensions?.code !== 'INTERNAL_SERVER_ERROR') return formatted;
  const cause = unwrapResolverError(error);
  if (cause instanceof AppError && cause.status < 500) {
    return { message: cause.message, path: formatted.path, extensions: { code: cause.code, details: cause.details } };
  }
  logError('graphql resolver failed', cause);
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/** `/graphql` over HTTP, with the same request context, credentials and header rules as the merchant REST APIs. */
export async function handleGraphQLRequest(
  services: Services,
  apollo: ApolloServer<GraphQLContext>,
  request: HttpRequest,
): Promise<HttpResponse> {
  let context: GraphQLContext;
  try {
    const { ctx } = await createRequestContext(services, requestHeaders(request), {
      traceId: request.traceId,
      auth: GRAPH_API_AUTH,
      headers: GRAPH_API_HEADERS,
    });
    context = { services, request: ctx };
    request.authenticated = true;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const code = error.status === 401 ? 'UNAUTHENTICATED' : error.status === 403 ? 'FORBIDDEN' : 'BAD_REQUEST';
    return {
      status: error.status,
      headers: { 'content-type': 'application/json' },
      body: { errors: [{ message: error.message, extensions: { code, traceId: request.traceId, details: error.details } }] },
    };
  }
  const body = request.method === 'POST' ? jsonBody(request, { numberTexts: false }) : undefined;
  const query = request.method === 'POST' ? (body as { query?: unknown } | undefined)?.query : request.query.get('query');
  const tooLarge = documentTooLarge(query, services.config.graphqlLimits);
  if (tooLarge) {
    return {
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: { errors: [{ message: tooLarge.message, extensions: { code: tooLarge.extensions.code, traceId: request.traceId } }] },
    };
  }
  if (request.method === 'POST') request.graphOperation = operationNameOf(body);
  const direct = await directExecutions.get(apollo)?.run(context, request, body);
  if (direct) return direct;
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: request.method,
      headers,
      search: request.query.toString() ? `?${request.query.toString()}` : '',
      body,
    },
    context: async () => context,
  });
  const out: Record<string, string> = {};
  for (const [name, value] of response.headers) out[name] = value;
  if (response.body.kind !== 'complete') throw new Error('Incremental delivery is not enabled');
  return { status: response.status ?? 200, headers: out, body: response.body.string };
}
