import http from 'node:http';
import https from 'node:https';
import type { PaygraphEnv } from '../../config.js';
import { outboundUrlShapeProblem, publicOnlyLookup } from './outbound-url.js';

export type OutboundOutcome = { statusCode: number; body?: string } | { error: string };

/** The most of a recipient's answer kept when a kind reads it (`readResponseBody`); the rest is cut off. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs `body` to a merchant's URL and reports the status code, or why there is none. The caller holds no
 * database transaction. Redirects are never followed (node:http does not, and a 3xx is not a 2xx), the whole
 * exchange is bounded by `timeoutMs`, and the receiver's body is discarded unless the caller reads it.
 */
export function postOutbound(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; env: PaygraphEnv; readResponseBody?: boolean },
): Promise<OutboundOutcome> {
  // The answer decides the outcome (the PSP make-payment callback): read it, cut off at the bound.
  const reading = options.readResponseBody ? { maxBytes: MAX_RESPONSE_BYTES, whenLarger: 'cut' as const } : undefined;
  return exchange(url, body, headers, options, reading);
}

export type OutboundExchange = { statusCode: number; body: string } | { error: string };

/**
 * POSTs like `postOutbound`, under the same URL policy and timeout, for the one kind of outbound call whose answer
 * is the point (a merchant's dynamic shipping options): the response body is read, up to `maxBytes`, within the
 * same `timeoutMs` as the whole exchange. A larger body is an error, not a truncated answer.
 */
export function postOutboundForBody(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; env: PaygraphEnv; maxBytes: number },
): Promise<OutboundExchange> {
  return exchange(url, body, headers, options, { maxBytes: options.maxBytes, whenLarger: 'refuse' }) as Promise<OutboundExchange>;
}

/** How much of the answer is read, and what a larger one is: cut off at the bound, or refused as an error. */
interface ResponseReading {
  maxBytes: number;
  whenLarger: 'cut' | 'refuse';
}

/** The one outbound POST: URL policy, timeout over the whole exchange, no redirects; the body read only when asked. */
function exchange(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; env: PaygraphEnv },
  reading: ResponseReading | undefined,
): Promise<OutboundOutcome> {
  const problem = outboundUrlShapeProblem(url, options.env);
  if (problem) return Promise.resolve({ error: `refused: ${problem}` });
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: AbortSignal.timeout(options.timeoutMs),
        lookup: options.env === 'production' ? publicOnlyLookup : undefined,
      },
      (response) => {
        if (!reading) {
          // The status is all we need; the rest of the body is drained (or cut off by the timeout) and ignored.
          response.on('error', () => undefined);
          response.resume();
          resolve({ statusCode: response.statusCode ?? 0 });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= reading.maxBytes) chunks.push(chunk);
          else if (reading.whenLarger === 'refuse') {
            response.destroy();
            resolve({ error: `response larger than ${reading.maxBytes} bytes` });
          } else if (size - chunk.length < reading.maxBytes) chunks.push(chunk);
        });
        response.on('error', (error) => resolve({ error: describe(error, options.timeoutMs) }));
        response.on('end', () =>
          resolve({ statusCode: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, reading.maxBytes) }),
        );
      },
    );
    request.on('error', (error) => resolve({ error: describe(error, options.timeoutMs) }));
    request.end(body);
  });
}

function describe(error: Error & { code?: string }, timeoutMs: number): string {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return `timeout: no response within ${timeoutMs} ms`;
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
