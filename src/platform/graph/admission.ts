import { unwrapResolverError } from '@apollo/server/errors';
import {
  GraphQLError,
  getOperationAST,
  getVariableValues,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import type { Principal } from '../auth/principal.js';
import type { TenancyScope } from '../auth/tenancy-scope.js';
import type { Services } from '../context.js';
import { AppError } from '../errors/app-error.js';
import { SubscriberTooSlowError } from '../events/event-stream.js';
import { rateLimitFields, refusalFields, type RateLimitState } from '../rate-limit/rate-limit-fields.js';
import type { Verdict } from '../rate-limit/request-limiter.js';
import { logError } from '../../log.js';
import { documentBoundsError } from './document-bounds.js';
import { controlCharacterError } from './input-text.js';
import { forbiddenFieldsError, refusedRootFields } from './principal-fields.js';
import { needsSalesUnit, salesUnitRequiredError } from './sales-unit-fields.js';
import { costOf, documentTooLarge, parseLimits, queryLimitRules } from './query-limits.js';
import { storableTimesRule } from './storable-times.js';
import { unavailableError } from './database-unavailable.js';
import { schemaDisclosure, type SchemaDisclosure } from './schema.js';
import { TrustedDocumentStore } from './trusted-documents.js';

export const GRAPHQL_PATH = '/graphql';

/**
 * What carries an operation: POST (or GET) /graphql serves queries and mutations through Apollo Server's pipeline;
 * the graphql-ws socket and the HTTP streams (graphql-sse on /graphql/stream, Apollo's multipart protocol on POST
 * /graphql: http-subscriptions.ts) serve subscriptions.
 */
export type Transport = 'http' | 'socket' | 'stream';

/**
 * Who asks: the principal the request front authenticated and the scope it settled (one sales unit, or the principal
 * as a whole), or the front's refusal (no valid credentials, a sales unit not covered), and the address the request
 * came from in both cases.
 */
export type Caller = { principal: Principal; scope: TenancyScope; address: string } | { refusal: AppError; address: string };

export interface OperationRequest {
  transport: Transport;
  caller: Caller;
  /** The document's text. */
  source: string | undefined;
  /** The document, when the transport parsed it already (Apollo Server parses, and keeps it per text); else parsed here. */
  document?: DocumentNode;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  /**
   * The registered document the request names (`documentId`, or `extensions.persistedQuery.sha256Hash`:
   * trusted-documents.ts), if it names one. Its text is the source; a request that also sends text must send that.
   */
  documentId?: string;
}

export type Admission =
  | { admitted: true; document: DocumentNode; operation: OperationDefinitionNode; headers: Record<string, string> }
  | {
      admitted: false;
      errors: readonly GraphQLError[];
      status: number;
      headers: Record<string, string>;
      /**
       * `null` where the operation is refused for what its fields need of the request (a sales unit), as a field's
       * own refusal answered it before the admission checked it: a client reading `data` sees null, as then.
       */
      data?: null;
    };

/** A document's verdict before any caller looks at it: kept with the parsed document, which the transports cache. */
type DocumentVerdict = { refusal: readonly GraphQLError[]; refusedBeforeValidation: boolean } | undefined;

/**
 * The one admission of every graph operation, whatever carries it: Apollo Server's plugin calls it for POST
 * /graphql (graphql-http.ts), the graphql-ws `onSubscribe` hook for the socket (graphql-ws.ts), and so would any
 * other transport. In one order:
 * 1. the caller: a request the front refused is charged to its address (one point), then answered with that refusal;
 * 1b. trusted documents: a named document is read from the registered ones (an unknown id is refused); with
 *    `PAYGRAPH_TRUSTED_DOCUMENTS=required` a request that names none is refused, whatever carries it;
 * 2. the document's limits: bytes, tokens (the parser), then the work it may ask of validation (document-bounds.ts);
 * 3. validation: graphql-js's rules, the depth, alias and cost caps, and the schema disclosure rule;
 * 4. the operation, and whether this transport serves its kind;
 * 5. the root fields the principal may select (`@principals` in the SDL), and the fields that act for one sales unit
 *    (`@salesUnit`): without one named, 400 naming `Merchant-Serial-Number`, so their resolvers are typed narrowed;
 * 6. the variables (coerced here on the socket; Apollo coerces them on HTTP), and control characters in any string;
 * 7. the rate-limit charge: an admitted operation spends its cost; a refused document spends its measured cost, up
 *    to the most an operation may cost (which is also what a document refused before it could be measured spends),
 *    and one point of its address, so hammering the admission with documents it refuses is not free.
 * The caller's quota past its end answers 429 whatever else was wrong. Errors leave through `clientError`, the one
 * error format of both transports.
 */
export class GraphAdmission {
  private readonly rules: readonly ValidationRule[];
  private readonly disclosure: SchemaDisclosure;
  private readonly verdicts = new WeakMap<DocumentNode, DocumentVerdict>();
  /** The registered documents (trusted-documents.ts); POST /graphql reads a named document's text here too. */
  readonly documents: TrustedDocumentStore;

  constructor(
    private readonly services: Services,
    private readonly schema: GraphQLSchema,
  ) {
    this.disclosure = schemaDisclosure(services.config.env === 'production');
    const limits = queryLimitRules(services.config.graphqlLimits, { introspectionAllowed: !this.disclosure.refusesIntrospection });
    this.rules = [...specifiedRules, ...limits, ...this.disclosure.rules, storableTimesRule];
    this.documents = new TrustedDocumentStore(services.orm);
  }

  /** Whether every operation must name a registered document (`PAYGRAPH_TRUSTED_DOCUMENTS=required`). */
  get documentsRequired(): boolean {
    return this.services.config.trustedDocuments === 'required';
  }

  async admit(received: OperationRequest): Promise<Admission> {
    const { caller } = received;
    if ('refusal' in caller) return this.refuseCaller(caller);
    const trusted = await this.trustedSource(received);
    if ('refusal' in trusted) return this.refuse(caller, [trusted.refusal], 1, received.transport);
    const { request } = trusted;
    const parsed = this.documentOf(request);
    if ('refusal' in parsed) return this.refuse(caller, [parsed.refusal], parsed.points, request.transport);
    const { document } = parsed;
    const verdict = this.verdictOf(document);
    if (verdict) {
      // Refused for its cost, a document is charged no more than the most an admitted one may cost.
      const points = verdict.refusedBeforeValidation
        ? this.mostPoints()
        : Math.min(this.pointsOf(document, request.operationName), this.mostPoints());
      return this.refuse(caller, verdict.refusal, points, request.transport);
    }
    const points = this.pointsOf(document, request.operationName);
    const refusal = this.operationRefusal(caller, document, request);
    if ('errors' in refusal) return this.refuse(caller, refusal.errors, points, request.transport, refusal.data);
    const charged = await this.chargeClient(caller.principal, points);
    if (!charged.allowed) return this.rateLimited(charged.state, request.transport);
    return { admitted: true, document, operation: refusal.operation, headers: rateLimitFields(charged.state) };
  }

  /**
   * A document Apollo Server refused before it reached the admission (it did not parse): charged as a refused
   * document, one point (the parser's work is bounded by the token cap). The rate-limit fields go on the answer.
   */
  async chargeUnadmitted(caller: Caller): Promise<Record<string, string>> {
    if ('refusal' in caller) return {};
    const charged = await this.chargeClient(caller.principal, 1);
    await this.services.rateLimiter.charge('address', caller.address);
    return rateLimitFields(charged.state);
  }

  /**
   * The one error format of every transport, as Apollo Server formats an error (errorNormalize.js: the code defaults to
   * INTERNAL_SERVER_ERROR, the `http` extension is not shown), then `formatClientError`.
   */
  clientError(error: GraphQLError): GraphQLFormattedError {
    const { http: _http, ...extensions } = error.extensions;
    return this.formatClientError(
      { ...error.toJSON(), extensions: { ...extensions, code: extensions.code ?? 'INTERNAL_SERVER_ERROR' } },
      error,
    );
  }

  /**
   * Apollo Server's `formatError`, and the last step of `clientError`: an internal error reaches the log with its
   * detail and the client sees a code only; an expected one (an AppError, a subscriber too slow) keeps its code; in
   * production no schema hints.
   */
  readonly formatClientError = (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError =>
    this.disclosure.formatError(scrubInternal(formatted, error));

  /**
   * Step 1b: the text of the document a request names, from the registered ones; a request that names none passes
   * as it is, unless documents are required. Refused before parsing: an unregistered text is never parsed.
   */
  private async trustedSource(request: OperationRequest): Promise<{ request: OperationRequest } | { refusal: GraphQLError }> {
    const { documentId } = request;
    if (documentId === undefined) return this.documentsRequired ? { refusal: documentRequired() } : { request };
    const body = await this.documents.bodyOf(documentId);
    if (body === undefined) return { refusal: documentNotFound(documentId) };
    // POST /graphql hands over the registered text (Apollo parsed it); graphql-ws sends an empty query beside the id.
    if (request.source) return request.source === body ? { request } : { refusal: documentMismatch(documentId) };
    return { request: { ...request, source: body, document: undefined } };
  }

  private documentOf(request: OperationRequest): { document: DocumentNode } | { refusal: GraphQLError; points: number } {
    const limits = this.services.config.graphqlLimits;
    const tooLarge = documentTooLarge(request.source, limits);
    if (tooLarge) return { refusal: tooLarge, points: this.mostPoints() };
    if (request.document) return { document: request.document };
    try {
      return { document: parse(request.source ?? '', parseLimits(limits)) };
    } catch (error) {
      // graphql-js parses nested lists and objects recursively: a few thousand `[` under the token cap overflow the
      // stack (the fuzz suite's case). Apollo Server answers that as a parse failure; so does every other transport.
      if (error instanceof RangeError) return { refusal: tooDeeplyNested(), points: 1 };
      if (!(error instanceof GraphQLError)) throw error;
      return { refusal: withCode(error, 'GRAPHQL_PARSE_FAILED'), points: 1 };
    }
  }

  /** Bounds, then validation, once per parsed document. */
  private verdictOf(document: DocumentNode): DocumentVerdict {
    if (this.verdicts.has(document)) return this.verdicts.get(document);
    let verdict: DocumentVerdict;
    const unbounded = documentBoundsError(document, this.services.config.graphqlLimits);
    if (unbounded) verdict = { refusal: [unbounded], refusedBeforeValidation: true };
    else {
      const errors = validate(this.schema, document, this.rules);
      if (errors.length > 0) {
        verdict = { refusal: errors.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')), refusedBeforeValidation: false };
      }
    }
    this.verdicts.set(document, verdict);
    return verdict;
  }

  /** Steps 4 to 6: what depends on the caller, the operation chosen and the variables. */
  private operationRefusal(
    caller: Extract<Caller, { principal: Principal }>,
    document: DocumentNode,
    request: OperationRequest,
  ): { operation: OperationDefinitionNode } | { errors: GraphQLError[]; data?: null } {
    const operation = getOperationAST(document, request.operationName ?? undefined);
    if (!operation) return { errors: [unresolvedOperation(request.operationName ?? undefined)] };
    const kindRefusal = transportRefusal(operation, request.transport);
    if (kindRefusal) return { errors: [kindRefusal] };
    const refused = refusedRootFields(this.schema, caller.principal, operation, document);
    if (refused.length > 0) return { errors: [forbiddenFieldsError(refused)] };
    if (caller.scope.kind !== 'salesUnit' && needsSalesUnit(this.schema, document, operation)) {
      return { errors: [salesUnitRequiredError()], data: null };
    }
    const variables = request.variables ?? undefined;
    if (request.transport !== 'http') {
      // Coerced here, as Apollo does before executing on HTTP, so a bad variable is refused like a bad document.
      const coerced = getVariableValues(this.schema, operation.variableDefinitions ?? [], variables ?? {});
      if (coerced.errors) return { errors: coerced.errors.map((error) => withCode(error, 'BAD_USER_INPUT')) };
    }
    const controlCharacters = controlCharacterError(document, variables);
    if (controlCharacters) return { errors: [controlCharacters] };
    return { operation };
  }

  private async refuse(
    caller: Extract<Caller, { principal: Principal }>,
    errors: readonly GraphQLError[],
    points: number,
    transport: Transport,
    data?: null,
  ): Promise<Admission> {
    const charged = await this.chargeClient(caller.principal, points);
    const address = await this.services.rateLimiter.charge('address', caller.address);
    if (!charged.allowed) return this.rateLimited(charged.state, transport);
    if (!address.allowed) return this.rateLimited(address.state, transport);
    const refusal = { admitted: false as const, errors, status: statusOf(errors), headers: rateLimitFields(charged.state) };
    return data === null ? { ...refusal, data } : refusal;
  }

  /** http-server.ts used to charge these before the graph; the address's quota is the admission's first step now. */
  private async refuseCaller(caller: Extract<Caller, { refusal: AppError }>): Promise<Admission> {
    const charged = await this.services.rateLimiter.charge('address', caller.address);
    if (!charged.allowed) return this.rateLimited(charged.state, 'http');
    const { refusal } = caller;
    const code = refusal.status === 401 ? 'UNAUTHENTICATED' : refusal.status === 403 ? 'FORBIDDEN' : 'BAD_REQUEST';
    const error = new GraphQLError(refusal.message, { extensions: { code, details: refusal.details, http: { status: refusal.status } } });
    return { admitted: false, errors: [error], status: refusal.status, headers: {} };
  }

  private rateLimited(state: RateLimitState, transport: Transport): Admission {
    const fields = refusalFields(state);
    const error = new GraphQLError(
      `Rate limit exceeded (${state.policy}: ${state.quota} per ${state.windowSeconds} s); retry in ${fields['retry-after']} s`,
      { extensions: { code: 'RATE_LIMITED', retryAfterSeconds: Number(fields['retry-after']), http: { status: 429 } } },
    );
    return { admitted: false, errors: [error], status: 429, headers: transport === 'socket' ? {} : fields };
  }

  private chargeClient(principal: Principal, points: number): Promise<Verdict> {
    return this.services.rateLimiter.charge('client', principal.clientId, points);
  }

  /** An operation's points: its cost as the limits measured it during validation (kept with the document). */
  private pointsOf(document: DocumentNode, operationName: string | null | undefined): number {
    return this.services.rateLimiter.graphPoints(costOf(document, operationName ?? undefined) ?? 1);
  }

  /** What a document refused before it could be measured is charged: the most an operation may cost. */
  private mostPoints(): number {
    return this.services.rateLimiter.graphPoints(this.services.config.graphqlLimits.maxCost);
  }
}

/**
 * One admission per app and schema, shared by every transport. Keyed by the app's services first: the schema is built
 * once per process (schema.ts), and two apps of one process (the tests) each admit with their own configuration.
 */
const admissions = new WeakMap<Services, WeakMap<GraphQLSchema, GraphAdmission>>();

export function graphAdmission(services: Services, schema: GraphQLSchema): GraphAdmission {
  let ofServices = admissions.get(services);
  if (!ofServices) admissions.set(services, (ofServices = new WeakMap()));
  let admission = ofServices.get(schema);
  if (!admission) ofServices.set(schema, (admission = new GraphAdmission(services, schema)));
  return admission;
}

const subscriptionsOverHttp =
  `Subscriptions are served over graphql-ws (subprotocol graphql-transport-ws) on ${GRAPHQL_PATH}, over SSE (graphql-sse) ` +
  `on ${GRAPHQL_PATH}/stream, and on POST ${GRAPHQL_PATH} with Accept: multipart/mixed;subscriptionSpec="1.0"`;

function transportRefusal(operation: OperationDefinitionNode, transport: Transport): GraphQLError | undefined {
  if (transport === 'http' && operation.operation === 'subscription') {
    // Over HTTP a subscription would run its resolver once with no event to resolve.
    return new GraphQLError(subscriptionsOverHttp, {
      extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
    });
  }
  if (transport !== 'http' && operation.operation !== 'subscription') {
    // Queries and mutations go to POST /graphql, where idempotency, request logs and CSRF prevention live.
    const carrier = transport === 'socket' ? 'the socket serves' : 'streams serve';
    return new GraphQLError(`Send ${operation.operation} operations to POST ${GRAPHQL_PATH}; ${carrier} subscriptions`, {
      extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
    });
  }
  return undefined;
}

/** Codes as Apollo's persisted-query clients and the Apollo Router know them (README, "Trusted documents"). */
function documentRequired(): GraphQLError {
  return new GraphQLError(
    "This service runs registered documents only (PAYGRAPH_TRUSTED_DOCUMENTS=required): send the document's id as documentId or extensions.persistedQuery.sha256Hash, not its text",
    { extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED', http: { status: 400 } } },
  );
}

function documentNotFound(id: string): GraphQLError {
  return new GraphQLError(`No registered document has the id "${id.slice(0, 100)}"`, {
    extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 400 } },
  });
}

function documentMismatch(id: string): GraphQLError {
  return new GraphQLError(`The query sent is not the text of registered document "${id.slice(0, 100)}"`, {
    extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
  });
}

function tooDeeplyNested(): GraphQLError {
  return new GraphQLError('Syntax Error: the document is nested too deeply to parse', {
    extensions: { code: 'GRAPHQL_PARSE_FAILED', http: { status: 400 } },
  });
}

/** graphql-js's own words, with the code Apollo Server gives them. */
function unresolvedOperation(operationName: string | undefined): GraphQLError {
  const message = operationName
    ? `Unknown operation named "${operationName}".`
    : 'Must provide operation name if query contains multiple operations.';
  return new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } } });
}

/** The codes Apollo Server gives the same failures, so a client handles every transport alike. */
function withCode(error: GraphQLError, code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED' | 'BAD_USER_INPUT'): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { code, http: { status: 400 } },
  });
}

function statusOf(errors: readonly GraphQLError[]): number {
  const http = errors[0]?.extensions.http as { status?: number } | undefined;
  return http?.status ?? 400;
}

function scrubInternal(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  if (formatted.extensions?.code !== 'INTERNAL_SERVER_ERROR') return formatted;
  const cause = unwrapResolverError(error);
  const unavailable = unavailableError(cause, formatted.path);
  if (unavailable) return unavailable;
  if (cause instanceof SubscriberTooSlowError)
    return { message: cause.message, path: formatted.path, extensions: { code: 'SUBSCRIBER_TOO_SLOW' } };
  if (cause instanceof AppError && cause.status < 500) {
    return { message: cause.message, path: formatted.path, extensions: { code: cause.code, details: cause.details } };
  }
  logError('graphql operation failed', cause);
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}
