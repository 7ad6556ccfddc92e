import { createServer, type Server } from 'node:http';
import { logError } from '../../log.js';
import type { Registry } from 'prom-client';

/** `/metrics` on its own port: listening before there are metrics to serve, so a taken port is known at once. */
export interface MetricsEndpoint {
  port: number;
  /** From now on, scrapes read this registry (an app's `Metrics`; before: 503, the service is still starting). */
  serve(metrics: { registry: Registry }): void;
  close(): Promise<void>;
}

/** Listens on `port` (0: any free port); rejects as `listen` does (EADDRINUSE: another process holds it). */
export async function listenForMetrics(port: number): Promise<MetricsEndpoint> {
  let served: { registry: Registry } | undefined;
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    if (!served) {
      res.writeHead(503).end();
      return;
    }
    const { registry } = served;
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        logError('metrics scrape failed', error);
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    serve: (metrics) => void (served = metrics),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
