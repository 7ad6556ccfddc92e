import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** What an endpoint answers: a status and a JSON body, or `hang` (answer only after `ms`). */
export type Answer = { status: number; body?: unknown } | { hang: number };

/**
 * A merchant's own endpoints on 127.0.0.1 for checkout: the callback URL and the dynamic shipping options
 * callbacks. Each path answers as the test says; every request is recorded.
 */
export class MerchantEndpoints {
  readonly received: Received[] = [];
  private readonly answers = new Map<string, (body: any, count: number) => Answer>();
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = raw ? JSON.parse(raw) : undefined;
        this.received.push({ path, headers: req.headers, body });
        const count = this.received.filter((r) => r.path === path).length;
        const answer = this.answers.get(path)?.(body, count) ?? { status: 200 };
        if ('hang' in answer) {
          setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('[]'), answer.hang).unref();
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  on(path: string, answer: (body: any, count: number) => Answer): string {
    this.answers.set(path, answer);
    return this.url(path);
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
