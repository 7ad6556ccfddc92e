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
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  /** A string or buffer is sent as is; anything else as JSON. Absent: no body. */
  body?: unknown;
}
