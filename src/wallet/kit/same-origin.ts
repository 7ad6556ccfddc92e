import type { HttpRequest } from '../../platform/rest/http-types.js';

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
