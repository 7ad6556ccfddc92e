import type { HttpRequest, HttpResponse } from '../../platform/rest/http-types.js';
import type { PageRoute } from '../../platform/rest/page-route.js';
import { pageSecurityHeaders } from './security-headers.js';

/**
 * Whether a form POST may come from where it came from: a browser names the page that sent it (`Origin`, and
 * `Sec-Fetch-Site`), and only our own pages may post to the wallet. A client that sends neither is not a browser
 * acting for someone else (a cross-site form always carries `Origin`), so it passes.
 */
export function isSameOriginPost(request: HttpRequest, publicUrl: string): boolean {
  const site = single(request.headers['sec-fetch-site']);
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = single(request.headers.origin);
  if (!origin) return true;
  if (origin === 'null') return false;
  const host = single(request.headers.host);
  const own = new Set([new URL(publicUrl).origin, ...(host ? [`http://${host}`, `https://${host}`] : [])]);
  return own.has(origin);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A page's POST route that runs only for a post from our own pages (`isSameOriginPost`); any other is answered
 * 403 with `refusal`, the page's own way of saying so.
 */
export function ownPagePost(
  publicUrl: string,
  pattern: string,
  refusal: () => string,
  run: (request: HttpRequest) => Promise<HttpResponse>,
): PageRoute {
  return {
    method: 'POST',
    pattern,
    run: async (request) =>
      isSameOriginPost(request, publicUrl) ? run(request) : { status: 403, headers: pageSecurityHeaders(request), body: refusal() },
  };
}
