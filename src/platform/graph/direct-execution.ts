import { execute, getOperationAST, GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { rateLimitFields } from '../rate-limit/rate-limit-fields.js';
import type { HttpRequest, HttpResponse } from '../rest/http-types.js';
import type { GraphQLContext } from './graphql-context.js';
import { controlCharacterError } from './input-text.js';
import type { PreparedDocuments } from './prepared-documents.js';
import { refusedRootFields } from './principal-fields.js';
import { chargeOperation } from './rate-limited.js';

/** What Apollo applies to every error a client receives (graphql-http.ts: scrubbed, then the schema disclosure). */
export type ErrorFormatter = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/** A POST body that is a plain operation: nothing but a query, its variables and its operation's name. */
interface PlainOperation {
  query: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

const JSON_CONTENT = /^application\/json\s*(;|$)/i;
const BODY_FIELDS = new Set(['query', 'variables', 'operationName']);
/** Accept values for which Apollo answers `application/json` (chooseContentTypeForSingleResultResponse). */
const ANSWERED_AS_JSON = new Set(['', '*/*', 'application/json']);
const JSON_RESPONSE = 'application/json; charset=utf-8';

/**
 * POST /graphql without Apollo Server's request pipeline, for the requests clients send nearly always: a JSON body
 * with a query that is valid (its verdict cached per text in PreparedDocuments), a query or mutation that passes
 * the same checks the Apollo plugins make (principal root fields, control characters, the rate limit by cost), run
 * by graphql-js's `execute` with the same context. The profile of a repeated `payment` query showed Apollo's
 * per-request work (plugin hooks, the query's SHA-256, content negotiation, two JSON passes over the body)
 * costing as much as the execution itself; none of it is what a REST request does.
 *
 * Anything else is left to Apollo, which answers it as before (undefined is returned): a document that does not
 * parse or validate, a subscription, a refusal by a check, variables that do not coerce, persisted queries,
 * extensions, GET, other content types. No resolver has run when a request is handed over; if the rate limiter was
 * charged, its verdict travels in the context, so Apollo does not charge the operation again.
 */
export class DirectExecution {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly documents: PreparedDocuments,
    private readonly formatError: ErrorFormatter,
  ) {}

  async run(context: GraphQLContext, request: HttpRequest, body: unknown): Promise<HttpResponse | undefined> {
    const plain = plainOperation(request, body);
    if (!plain) return undefined;
    const prepared = this.documents.get(plain.query);
    if (!prepared.valid) return undefined;
    const { document } = prepared;
    const operation = getOperationAST(document, plain.operationName);
    if (!operation || operation.operation === 'subscription') return undefined;
    if (refusedRootFields(this.schema, context.request.principal, operation).length > 0) return undefined;
    if (controlCharacterError(document, plain.variables)) return undefined;
    const verdict = await chargeOperation(context.services, context.request.principal.clientId, document, plain.operationName);
    context.charged = verdict;
    if (!verdict.allowed) return undefined;
    const result = await execute({
      schema: this.schema,
      document,
      contextValue: context,
      variableValues: plain.variables,
      operationName: plain.operationName,
    });
    // No data at all: the variables did not coerce, and nothing ran; Apollo gives that its 400.
    if (result.data === undefined) return undefined;
    const headers: Record<string, string> = { 'content-type': JSON_RESPONSE, ...rateLimitFields(verdict.state) };
    let status = 200;
    const errors = result.errors?.map((error) => {
      const { formatted, http } = this.clientError(error);
      if (http?.status) status = http.status;
      for (const [name, value] of http?.headers ?? []) headers[name] = value;
      return formatted;
    });
    return { status, headers, body: JSON.stringify({ errors, data: result.data }) };
  }

  /**
   * As Apollo formats an execution error (errorNormalize.js): the code defaults to INTERNAL_SERVER_ERROR, an
   * `http` extension sets the status and headers and is not shown, then the server's `formatError`.
   */
  private clientError(error: GraphQLError): { formatted: GraphQLFormattedError; http?: HttpExtension } {
    const extensions: Record<string, unknown> = { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' };
    const http = isHttpExtension(extensions.http) ? extensions.http : undefined;
    if (http) delete extensions.http;
    try {
      return { formatted: this.formatError({ ...error.toJSON(), extensions }, error), http };
    } catch {
      return { formatted: { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }, http };
    }
  }
}

interface HttpExtension {
  status?: number;
  headers?: Map<string, string>;
}

function isHttpExtension(value: unknown): value is HttpExtension {
  if (!value || typeof value !== 'object') return false;
  const head = value as Record<string, unknown>;
  return (!('status' in head) || typeof head.status === 'number') && (!('headers' in head) || head.headers instanceof Map);
}

function plainOperation(request: HttpRequest, body: unknown): PlainOperation | undefined {
  if (request.method !== 'POST' || !JSON_CONTENT.test(headerText(request, 'content-type'))) return undefined;
  if (!ANSWERED_AS_JSON.has(headerText(request, 'accept').trim())) return undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const fields = body as Record<string, unknown>;
  for (const key in fields) if (!BODY_FIELDS.has(key)) return undefined;
  const { query, variables, operationName } = fields;
  if (typeof query !== 'string' || query === '') return undefined;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  return {
    query,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: (operationName ?? undefined) as string | undefined,
  };
}

function headerText(request: HttpRequest, name: string): string {
  const value = request.headers[name];
  return (Array.isArray(value) ? value.join(', ') : value) ?? '';
}
