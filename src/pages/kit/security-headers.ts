import type { HttpRequest } from '../../platform/rest/http-types.js';

export interface PagePolicy {
  /** Extra sources of `connect-src` besides 'self' (the page's own WebSocket origin is added from the request). */
  webSocket?: boolean;
  /** Monaco (the IDE's editor) injects style elements and runs web workers from our own origin. */
  inlineStyles?: boolean;
  workers?: boolean;
}

/**
 * The headers of every HTML page: a Content-Security-Policy that runs only our own scripts (no inline script, no
 * eval), no framing, no sniffing, and no Referer to other origins (a landing page's URL carries its payment's token; same-origin
 * keeps the Origin header on our own form posts, which no-referrer would turn into `null`).
 */
export function pageSecurityHeaders(request: HttpRequest, policy: PagePolicy = {}): Record<string, string> {
  const connect = ["'self'"];
  if (policy.webSocket) {
    const host = typeof request.headers.host === 'string' && /^[\w.:[\]-]+$/.test(request.headers.host) ? request.headers.host : undefined;
    if (host) connect.push(`ws://${host}`, `wss://${host}`);
  }
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${policy.inlineStyles ? " 'unsafe-inline'" : ''}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${connect.join(' ')}`,
    ...(policy.workers ? ["worker-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': csp,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
  };
}
