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
}
