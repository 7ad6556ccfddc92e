import { Agent, request } from 'node:http';
import { percentiles } from './percentiles.js';

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requests: number;
  failures: number;
  /** Successful requests per second: a failed request is not throughput. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface LoadOptions {
  concurrency: number;
  durationMs: number;
  expectStatus: number;
  next: (i: number) => LoadRequest;
  /** Also judge the body: a GraphQL answer is 200 even when it carries `errors` or `userErrors`. */
  succeeded?: (body: string) => boolean;
}

/** Keeps `concurrency` requests in flight for `durationMs` over keep-alive connections; bounded in time. */
export async function runLoad(baseUrl: string, options: LoadOptions): Promise<LoadResult> {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  let failures = 0;
  let counter = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;

  const worker = async () => {
    while (performance.now() < deadline) {
      const spec = options.next(counter++);
      const t0 = performance.now();
      const { status, body } = await send(agent, url, spec, options.succeeded !== undefined);
      latencies.push(performance.now() - t0);
      if (status !== options.expectStatus || (options.succeeded && !options.succeeded(body))) failures++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  const { p50, p99 } = percentiles(latencies);
  return { requests: latencies.length, failures, perSecond: (latencies.length - failures) / elapsed, p50Ms: p50, p99Ms: p99 };
}

/**
 * A GraphQL answer that succeeded: no `errors`, and every `userErrors` list on the way empty. Read from the text, not
 * parsed: the client shares the cores with the server it measures, and a parse and a walk of every answer was client
 * work the REST rows (which only read the status) do not do. Paygraph answers compact JSON, where `"errors":` and
 * `"userErrors":[` can only be keys (a quote inside a string value is escaped), so the text says what the parse did.
 */
export function graphqlSucceeded(body: string): boolean {
  return body.startsWith('{') && !body.includes('"errors":') && !USER_ERRORS_NOT_EMPTY.test(body);
}

const USER_ERRORS_NOT_EMPTY = /"userErrors":\[(?!\])/;

function send(agent: Agent, url: URL, spec: LoadRequest, keepBody: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: spec.method,
        path: spec.path,
        headers: { ...spec.headers, ...(spec.body ? { 'content-length': Buffer.byteLength(spec.body) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        if (keepBody) res.on('data', (chunk: Buffer) => chunks.push(chunk));
        else res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end(spec.body);
  });
}
