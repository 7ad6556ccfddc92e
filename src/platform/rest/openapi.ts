import { MSN_PATTERN, SYSTEM_HEADERS, type HeaderRules } from '../auth/header-rules.js';
import type { DeclaredRoute, RestInterface } from './rest-interface.js';

type Json = Record<string, unknown>;

/**
 * The interface's OpenAPI 3 document, derived from its declaration: paths and methods, path and header
 * parameters (from its header rules), request bodies (from the routes' body shapes) and its error format as the
 * error response, so the document cannot drift from what the routes do.
 */
export function openApiDocument(restInterface: RestInterface): Json {
  const paths: Record<string, Json> = {};
  for (const route of restInterface.routes) {
    const operations = (paths[route.pattern] ??= {});
    operations[route.method.toLowerCase()] = operation(restInterface, route);
  }
  return {
    openapi: '3.0.3',
    info: { title: restInterface.name, version: '1' },
    paths,
    components: {
      schemas: { Error: restInterface.errorFormat.jsonSchema },
      securitySchemes: securitySchemes(restInterface),
    },
  };
}

function operation(restInterface: RestInterface, route: DeclaredRoute): Json {
  const op: Json = {
    summary: route.summary,
    parameters: [...pathParameters(route), ...headerParameters(route)],
    responses: {
      [String(route.success.status)]: {
        description: route.success.description,
        ...(route.success.schema ? { content: { 'application/json': { schema: route.success.schema } } } : {}),
      },
      default: {
        description: `Error (${restInterface.errorFormat.name})`,
        content: { [restInterface.errorFormat.contentType]: { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
  if (route.body) op.requestBody = { required: true, content: { 'application/json': { schema: route.body.jsonSchema } } };
  const security = securityOf(route);
  if (security) op.security = security;
  return op;
}

function pathParameters(route: DeclaredRoute): Json[] {
  return [...route.pattern.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: (name && route.params[name]?.jsonSchema) ?? { type: 'string' },
  }));
}

function headerParameters(route: DeclaredRoute): Json[] {
  const rules: HeaderRules | undefined = route.headers;
  const header = (name: string, required: boolean, schema: Json): Json => ({ name, in: 'header', required, schema });
  const parameters: Json[] = [];
  if (route.idempotent) parameters.push(header('Idempotency-Key', true, { type: 'string', maxLength: 50 }));
  if (!rules) return parameters;
  parameters.push(header('Merchant-Serial-Number', rules.msn === 'required', { type: 'string', pattern: MSN_PATTERN.source }));
  for (const suffix of SYSTEM_HEADERS) {
    parameters.push(
      header(`Svc-${suffix}`, rules.systemHeaders.presence === 'required', { type: 'string', maxLength: rules.systemHeaders.maxLength }),
    );
  }
  if (rules.pspId) parameters.push(header('Psp-Id', true, { type: 'string', format: 'uuid' }));
  if (rules.userToken) parameters.push(header('User-Token', true, { type: 'string' }));
  if (rules.clientCredentials) {
    parameters.push(header('client_id', true, { type: 'string' }), header('client_secret', true, { type: 'string' }));
  }
  return parameters;
}

function securitySchemes(restInterface: RestInterface): Json {
  const schemes: Json = {};
  for (const route of restInterface.routes) {
    for (const alternative of securityOf(route) ?? []) {
      if ('bearer' in alternative) schemes.bearer = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' };
      if ('subscriptionKey' in alternative) schemes.subscriptionKey = { type: 'apiKey', in: 'header', name: 'Ocp-Apim-Subscription-Key' };
    }
  }
  return schemes;
}

/** The route's credentials as OpenAPI security alternatives; an optional subscription key adds the token alone. */
function securityOf(route: DeclaredRoute): Json[] | undefined {
  if (route.auth === 'public') return route.documentedAuth ? [{ bearer: [], subscriptionKey: [] }] : undefined;
  if (route.auth.method !== 'bearer') return [{ subscriptionKey: [] }];
  return route.auth.subscriptionKey === 'optional'
    ? [{ bearer: [], subscriptionKey: [] }, { bearer: [] }]
    : [{ bearer: [], subscriptionKey: [] }];
}
