import {
  GraphQLError,
  Kind,
  getNamedType,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
} from 'graphql';
import type { Services } from '../context.js';
import { AppError } from '../errors/app-error.js';
import { jsonBody } from '../rest/body.js';
import { STREAM_DRAINING, type HttpRequest, type HttpResponse, type StreamOut } from '../rest/http-types.js';
import { logInfo } from '../../log.js';
import { GRAPHQL_PATH, graphAdmission, type GraphAdmission } from './admission.js';
import { badGraphRequest, graphCallerOf } from './graphql-http.js';
import { operationContext } from './subscription-context.js';
import { subscribeWithFreshContextPerEvent } from './subscription-execution.js';
import type { SharedExecutions, SharedResult } from './subscription-sharing.js';
import { payloadOf, type SubscriptionOutlet } from './subscription-writer.js';
import { documentIdOf } from './trusted-documents.js';

/** GraphQL over Server-Sent Events (the graphql-sse protocol, distinct connections mode). */
export const GRAPHQL_STREAM_PATH = `${GRAPHQL_PATH}/stream`;

/** graphql-sse on /graphql/stream, or Apollo's multipart HTTP subscriptions on POST /graphql. */
export type StreamProtocol = 'sse' | 'multipart';

/** The HTTP subscription transport a request asks for, if any. */
export function streamProtocolOf(request: HttpRequest): StreamProtocol | undefined {
  if (request.path === GRAPHQL_STREAM_PATH) return 'sse';
  if (request.path !== GRAPHQL_PATH || request.method !== 'POST') return undefined;
  return acceptsMultipartSubscriptions(request.headers.accept) ? 'multipart' : undefined;
}

/** `multipart/mixed` with `subscriptionSpec=1.0` (quoted or not) among the Accept header's types, as Apollo Client sends. */
function acceptsMultipartSubscriptions(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  return value
    .split(',')
    .some((type) => /^\s*multipart\/mixed\s*;/i.test(type) && /;\s*subscriptionSpec\s*=\s*"?1\.0"?\s*(;|$)/i.test(type));
}

/**
 * Subscriptions over HTTP, beside graphql-ws: each request carries one subscription, passes the one admission
 * (admission.ts, transport `stream`: the same document limits and rate charge as the socket), and runs on the same
 * subscription executor and shared executions as the socket's (subscription-execution.ts). Authentication is by the
 * request's headers, as for POST /graphql; nothing is read from the URL but the operation of a GET.
 *
 * A client holds at most `socketLimits.maxSubscriptions` streams open at once on an instance, the number of
 * subscriptions one socket may hold; a stream whose client stops reading is ended past `socketLimits.maxUnsentBytes`,
 * as a socket is closed. Each stream's result carries its event's id (an SSE `id` line); a request with
 * `Last-Event-ID` resumes after that event: the header becomes the root field's `after:` argument.
 */
export class HttpSubscriptions {
  private readonly admission: GraphAdmission;
  private readonly openByClient = new Map<string, number>();
  private opened = 0;
  /** Results written to streams since start (the notifications metric, beside graphql-ws's). */
  readonly sent = { notifications: 0 };

  constructor(
    private readonly services: Services,
    private readonly schema: GraphQLSchema,
    private readonly sharing: SharedExecutions,
  ) {
    this.admission = graphAdmission(services, schema);
  }

  /** Streams open now (the open-subscriptions metric). */
  openStreams(): number {
    return this.opened;
  }

  async serve(protocol: StreamProtocol, request: HttpRequest): Promise<HttpResponse> {
    const format = FORMATS[protocol];
    if (request.method !== 'POST' && !(protocol === 'sse' && request.method === 'GET')) {
      return { status: 405, headers: { allow: protocol === 'sse' ? 'GET, POST' : 'POST' }, body: '' };
    }
    const caller = await graphCallerOf(this.services, request, this.admission);
    if ('response' in caller) return caller.response;
    if ('refused' in caller) return format.refusal(caller.refused.errors, caller.refused.status, caller.refused.headers, this.admission);
    const params = operationParams(request);
    if (typeof params === 'string') return badGraphRequest(request, params);
    request.graphOperation = params.operationName ?? undefined;
    const lastEventId = headerOf(request, 'last-event-id');
    if (lastEventId !== undefined && !/^\d{1,18}$/.test(lastEventId)) {
      return badGraphRequest(request, 'Last-Event-ID is the id of the last event received: digits');
    }
    const { context } = caller;
    const client = context.request.principal.clientId;
    const max = this.services.config.socketLimits.maxSubscriptions;
    const held = this.openByClient.get(client) ?? 0;
    if (held >= max) return format.refusal([tooManyStreams(max)], 429, {}, this.admission);
    // Counted before the admission, as graphql-ws counts a subscription as it arrives: two at once cannot both pass.
    this.openByClient.set(client, held + 1);
    let release: (() => void) | undefined = () => this.release(client);
    try {
      const verdict = await this.admission.admit({
        transport: 'stream',
        caller: { principal: context.request.principal, scope: context.request.scope, address: context.address ?? '' },
        source: params.query,
        operationName: params.operationName,
        variables: params.variables,
        documentId: params.documentId,
      });
      if (!verdict.admitted) return format.refusal(verdict.errors, verdict.status, verdict.headers, this.admission);
      const document =
        lastEventId === undefined ? verdict.document : resumedAfter(this.schema, verdict.document, verdict.operation, lastEventId);
      const outlet = new StreamOutlet(
        format,
        (result) => this.clientResult(result),
        this.services.config.socketLimits.maxUnsentBytes,
        this.sent,
      );
      const subscribed = await subscribeWithFreshContextPerEvent(
        this.sharing,
        {
          schema: this.schema,
          document,
          operationName: params.operationName ?? undefined,
          variableValues: params.variables ?? undefined,
          contextValue: operationContext(this.services, { principal: context.request.principal, scope: context.request.scope }),
        },
        outlet,
      );
      const headers = { ...format.headers, ...verdict.headers };
      if (!(Symbol.asyncIterator in subscribed)) {
        // The stream did not start (an `after:` that is no event of the unit): its errors, then the end.
        return { status: 200, headers, stream: { heartbeat: format.heartbeat, run: async (out) => outlet.single(out, subscribed) } };
      }
      this.opened++;
      const done = release;
      release = undefined;
      return {
        status: 200,
        headers,
        stream: {
          heartbeat: format.heartbeat,
          run: async (out) => {
            try {
              await outlet.follow(out, subscribed);
            } finally {
              this.opened--;
              done();
            }
          },
        },
      };
    } finally {
      release?.();
    }
  }

  private release(client: string): void {
    const held = (this.openByClient.get(client) ?? 1) - 1;
    if (held > 0) this.openByClient.set(client, held);
    else this.openByClient.delete(client);
  }

  private clientResult(result: ExecutionResult): ExecutionResult | FormattedExecutionResult {
    return result.errors ? { ...result, errors: result.errors.map((e) => this.admission.clientError(e)) } : result;
  }
}

/** How one protocol frames a stream. */
interface StreamFormat {
  headers: Record<string, string>;
  heartbeat: Buffer;
  /** A result, around its payload (serialized once per event and operation, for every transport). */
  next(payload: Buffer, eventId: number | undefined): Buffer;
  /** The stream ends: its results are over (the subscription's events ended, or failed). */
  complete: Buffer;
  /** The server drains: what tells the client to resume (elsewhere). */
  draining: Buffer;
  /** An operation refused before it started. */
  refusal(errors: readonly GraphQLError[], status: number, headers: Record<string, string>, admission: GraphAdmission): HttpResponse;
}

const SSE: StreamFormat = {
  headers: { 'content-type': 'text/event-stream; charset=utf-8' },
  heartbeat: Buffer.from(':\n\n'),
  next: (payload, eventId) =>
    Buffer.concat([Buffer.from(`${eventId === undefined ? '' : `id: ${eventId}\n`}event: next\ndata: `), payload, Buffer.from('\n\n')]),
  complete: Buffer.from('event: complete\ndata: \n\n'),
  // No `complete`: the graphql-sse client takes a stream that ends without one for a lost connection, and reconnects.
  draining: Buffer.alloc(0),
  // The protocol: errors before execution are `next` events of an accepted stream, since a browser's EventSource shows
  // nothing of a 4xx, and graphql-sse's client retries one as a network failure.
  refusal: (errors, _status, headers, admission) => {
    const payload = Buffer.from(JSON.stringify({ errors: errors.map((e) => admission.clientError(e)) }));
    const body = Buffer.concat([SSE.next(payload, undefined), SSE.complete]);
    return { status: 200, headers: { ...SSE.headers, ...headers }, body };
  },
};

const PART_START = '\r\ncontent-type: application/json; charset=utf-8\r\n\r\n';
const BOUNDARY = '\r\n--graphql';

/**
 * Apollo's multipart HTTP subscriptions: each part ends with the boundary, so a client takes it as it arrives; `{}`
 * is the heartbeat; `{"payload": null, "errors": [...]}` a transport error that ends the subscription.
 */
const MULTIPART: StreamFormat = {
  headers: { 'content-type': 'multipart/mixed;boundary="graphql";subscriptionSpec="1.0"' },
  heartbeat: Buffer.from(`${PART_START}{}${BOUNDARY}`),
  next: (payload) => Buffer.concat([Buffer.from(`${PART_START}{"payload":`), payload, Buffer.from(`}${BOUNDARY}`)]),
  complete: Buffer.from('--\r\n'),
  draining: Buffer.from(
    `${PART_START}${JSON.stringify({
      payload: null,
      errors: [
        { message: 'The service is restarting: subscribe again with after: the last eventId', extensions: { code: 'SERVICE_RESTART' } },
      ],
    })}${BOUNDARY}`,
  ),
  // Refused before it started, the answer is POST /graphql's: the admission's status and the graph's error shape.
  refusal: (errors, status, headers, admission) => ({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: { errors: errors.map((e) => admission.clientError(e)) },
  }),
};

/** The multipart stream opens with its first boundary. */
const MULTIPART_OPENING = Buffer.from(BOUNDARY);

const FORMATS: Record<StreamProtocol, StreamFormat> = { sse: SSE, multipart: MULTIPART };

/**
 * One HTTP stream's subscription: results written by the executor before the response started are held, then
 * written in order. A client that stops reading is cut off past `maxUnsentBytes`, and resumes.
 */
class StreamOutlet implements SubscriptionOutlet {
  private out: StreamOut | undefined;
  private readonly waiting: Buffer[] = [];
  private cut = false;
  private cutOff: () => void = () => undefined;
  /** Resolves when the client was cut off for reading too slowly. */
  private readonly tooSlow = new Promise<'ending'>((resolve) => (this.cutOff = () => resolve('ending')));

  constructor(
    private readonly format: StreamFormat,
    private readonly clientResult: (result: ExecutionResult) => ExecutionResult | FormattedExecutionResult,
    private readonly maxUnsentBytes: number,
    private readonly counts: { notifications: number },
  ) {}

  get open(): boolean {
    return !this.cut && !(this.out?.ending.aborted ?? false);
  }

  write(shared: SharedResult): void {
    if (!this.open) return;
    const chunk = this.format.next(payloadOf(shared, this.clientResult), shared.eventId);
    if (!this.out) {
      this.counts.notifications++;
      this.waiting.push(chunk);
      return;
    }
    if (this.out.unsentBytes > this.maxUnsentBytes) {
      logInfo('subscriber stream ended: it stopped reading', { unsentBytes: this.out.unsentBytes, maxUnsentBytes: this.maxUnsentBytes });
      this.cut = true;
      this.cutOff();
      return;
    }
    this.counts.notifications++;
    this.out.write(chunk);
  }

  /** A result that is the whole answer. */
  async single(out: StreamOut, result: ExecutionResult): Promise<void> {
    this.start(out);
    out.write(this.format.next(Buffer.from(JSON.stringify(this.clientResult(result))), undefined));
    out.write(this.format.complete);
  }

  /** Follows the subscription until its events end, it fails, the client goes away or the server drains. */
  async follow(out: StreamOut, subscription: AsyncIterableIterator<ExecutionResult>): Promise<void> {
    this.start(out);
    const ended = new Promise<'ending'>((resolve) => {
      if (out.ending.aborted) resolve('ending');
      else out.ending.addEventListener('abort', () => resolve('ending'), { once: true });
    });
    try {
      // The executor's iterator would end at the next event once `open` is false: a stream ending now ends it now.
      const next = await Promise.race([subscription.next(), ended, this.tooSlow]);
      if (next === 'ending') {
        if (out.ending.reason === STREAM_DRAINING) out.write(this.format.draining);
        return;
      }
      out.write(this.format.complete);
    } catch (error) {
      // A failure of the stream (a subscriber too slow, an execution that threw): the client's error, then the end.
      const errors = [this.clientErrorOf(error)];
      out.write(this.format.next(Buffer.from(JSON.stringify({ errors })), undefined));
      out.write(this.format.complete);
    } finally {
      await subscription.return?.();
    }
  }

  private start(out: StreamOut): void {
    this.out = out;
    if (this.format === MULTIPART) out.write(MULTIPART_OPENING);
    for (const chunk of this.waiting.splice(0)) out.write(chunk);
  }

  private clientErrorOf(error: unknown): unknown {
    const graphError = error instanceof GraphQLError ? error : new GraphQLError('stream failed', { originalError: error as Error });
    return this.clientResult({ errors: [graphError] }).errors![0];
  }
}

/** The GraphQL request: a POST's JSON body, or (SSE only) a GET's search parameters. */
function operationParams(
  request: HttpRequest,
): { query: string | undefined; operationName?: string | null; variables?: Record<string, unknown> | null; documentId?: string } | string {
  let body: unknown;
  try {
    body =
      request.method === 'GET'
        ? {
            query: request.query.get('query') ?? undefined,
            operationName: request.query.get('operationName'),
            variables: request.query.has('variables') ? JSON.parse(request.query.get('variables')!) : undefined,
            documentId: request.query.get('documentId') ?? undefined,
            extensions: request.query.has('extensions') ? JSON.parse(request.query.get('extensions')!) : undefined,
          }
        : jsonBody(request, { numberTexts: false });
  } catch (error) {
    if (error instanceof AppError) return error.message;
    return 'The variables parameter is not valid JSON';
  }
  if (typeof body !== 'object' || body === null) return 'The request is a JSON object with a query';
  const { query, operationName, variables } = body as Record<string, unknown>;
  // A registered document is named instead of sent (trusted-documents.ts); the admission reads its text.
  const documentId = documentIdOf(body as Parameters<typeof documentIdOf>[0]);
  if (typeof query !== 'string' && !(documentId !== undefined && query === undefined)) return 'The request has no query (a string)';
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return 'operationName is a string';
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return 'variables is an object';
  }
  return {
    query: query as string | undefined,
    operationName,
    variables: variables as Record<string, unknown> | null | undefined,
    documentId,
  };
}

function headerOf(request: HttpRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The operation resumed after `lastEventId`: the root field's `after:` argument, where it has one, is that id (which
 * overrides the `after:` the client first sent: the id it last received is later). A stream with no `after:` has no
 * event ids and is not resumed.
 */
function resumedAfter(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  lastEventId: string,
): DocumentNode {
  const root = schema.getSubscriptionType();
  if (!root) return document;
  const resumed = (selection: SelectionNode): SelectionNode => {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      return { ...selection, selectionSet: { ...selection.selectionSet, selections: selection.selectionSet.selections.map(resumed) } };
    }
    if (selection.kind !== Kind.FIELD) return selection;
    const field = root.getFields()[selection.name.value];
    const after = field?.args.find((arg) => arg.name === 'after');
    if (!after || getNamedType(after.type).name !== 'ID') return selection;
    const value = { kind: Kind.STRING, value: lastEventId } as const;
    const argument = { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'after' }, value } as const;
    return { ...selection, arguments: [...(selection.arguments ?? []).filter((a) => a.name.value !== 'after'), argument] };
  };
  const resumedOperation = {
    ...operation,
    selectionSet: { ...operation.selectionSet, selections: operation.selectionSet.selections.map(resumed) },
  };
  return { ...document, definitions: document.definitions.map((definition) => (definition === operation ? resumedOperation : definition)) };
}

function tooManyStreams(max: number): GraphQLError {
  return new GraphQLError(`A client holds at most ${max} subscription streams open at once; end one first`, {
    extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', http: { status: 429 } },
  });
}
