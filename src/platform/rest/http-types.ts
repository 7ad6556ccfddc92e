import type { IncomingHttpHeaders } from 'node:http';

export interface HttpRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  params: Record<string, string>;
  rawBody: Buffer;
  traceId: string;
  /** The matched route's path template, set by the router before the route runs (request observers read it). */
  routePattern?: string;
  /**
   * The caller proved who it is: a valid access token (seen by the rate limiter, on every interface, also those
   * that authenticate in their handlers), or credentials the request front accepted. Only such a request counts
   * against a sales unit.
   */
  authenticated?: boolean;
  /** The socket's peer: the client, or the load balancer in front of it (see `clientAddress`). */
  remoteAddress?: string;
  /** A graph request's operation name as the client sent it, once its body was read (the metrics name it). */
  graphOperation?: string;
  /** Aborted when the client goes away (or the server closes its connection) before the response is sent. */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  /** A string or buffer is sent as is; anything else as JSON. Absent: no body. */
  body?: unknown;
  /** A body written as it comes rather than a finished one (subscriptions over HTTP); `body` is then ignored. */
  stream?: StreamedBody;
}

/**
 * A response body that stays open: the HTTP server sends the headers at once, writes `heartbeat` whenever the stream
 * has been quiet for the keep-alive interval (under a balancer's idle timeout), and ends the response when `run`
 * resolves.
 */
export interface StreamedBody {
  /** What an idle stream writes to keep its connection alive, in its own format (an SSE comment, an empty part). */
  heartbeat: Buffer;
  run(out: StreamOut): Promise<void>;
}

export interface StreamOut {
  write(chunk: Buffer): void;
  /** Bytes written and not yet taken by the client's connection. */
  readonly unsentBytes: number;
  /**
   * Aborted when the stream must end now: the client went away (`reason` "gone") or the server is draining
   * ("draining"), in which case the stream may still write its last words before `run` resolves.
   */
  readonly ending: AbortSignal;
}

/** Why a stream's `ending` signal was aborted. */
export const STREAM_GONE = 'gone';
export const STREAM_DRAINING = 'draining';
