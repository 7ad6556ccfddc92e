import type { HttpRequest, HttpResponse } from './http-types.js';

/**
 * A route of a page a browser opens (HTML, its form posts and its assets), not of a REST interface: it has no
 * OpenAPI entry, no credentials of an API client, and reads what a browser sends (Origin, Host, the form body)
 * from the request itself. Errors outside a page's own answer use the fallback problem body.
 */
export interface PageRoute {
  method: 'GET' | 'POST';
  /** The full path pattern, with `{name}` parameters. */
  pattern: string;
  run(request: HttpRequest): Promise<HttpResponse>;
}
