import type { HttpRequest } from '../rest/http-types.js';

/**
 * A browser navigating to /graphql asks for HTML (the IDE, a page); programs ask for JSON or send no Accept at all
 * (the graph). The HTTP server asks it to route the request, so it lives beside the graph, not among the pages.
 */
export function wantsGraphQLIde(request: HttpRequest): boolean {
  const accept = request.headers.accept;
  return request.method === 'GET' && /\btext\/html\b/.test((Array.isArray(accept) ? accept.join(', ') : accept) ?? '');
}
