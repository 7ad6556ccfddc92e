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
  /** Aborted when the client goes away (or the server closes its connection) before the response is sent. */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  /** A string or buffer is sent as is; anything else as JSON. Absent: no body. */
  body?: unknown;
}
