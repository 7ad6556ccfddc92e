import { Agent, request } from 'node:http';

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requests: number;
  failures: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Keeps `concurrency` requests in flight for `durationMs` over keep-alive connections; bounded in time. */
export async function runLoad(
  baseUrl: string,
  options: { concurrency: number; durationMs: number; expectStatus: number; next: (i: number) => LoadRequest },
): Promise<LoadResult> {
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
      const status = await send(agent, url, spec);
      latencies.push(performance.now() - t0);
      if (status !== options.expectStatus) failures++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, failures, perSecond: latencies.length / elapsed, p50Ms: at(0.5), p99Ms: at(0.99) };
}

function send(agent: Agent, url: URL, spec: LoadRequest): Promise<number> {
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
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(spec.body);
  });
}
