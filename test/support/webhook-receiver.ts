import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONDITION_DEADLINE_MS } from './deadlines.js';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  eventId: string;
  /** Whether the Authorization and content hash match a signature made with the path's secret. */
  verified: boolean;
  status: number;
  at: number;
}

/**
 * What the receiver answers: a status code, `hang` to answer only after `ms` (past the sender's timeout), or `held` to
 * answer with the status the promise gives, once the test settles it.
 */
export type Reply = number | { hang: number } | { held: Promise<number> };

/**
 * A merchant's webhook endpoint on 127.0.0.1. Each registration gets its own path; the receiver checks every
 * request's signature against that path's secret, as a careful merchant would.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly replies = new Map<string, (body: any) => Reply>();
  private server: Server | undefined;
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        const body = JSON.parse(raw);
        const reply = this.replies.get(path)?.(body) ?? 200;
        // A hung reply comes after the sender gave up: nothing was acknowledged.
        const status = typeof reply === 'number' ? reply : 0;
        this.received.push({
          path,
          headers: req.headers,
          body,
          eventId: String(req.headers['x-paygraph-event-id']),
          verified: this.verify(path, req.headers, raw),
          status,
          at: performance.now(),
        });
        if (typeof reply === 'number') res.writeHead(status).end();
        else if ('held' in reply) void reply.held.then((held) => !res.destroyed && res.writeHead(held).end());
        else setTimeout(() => res.writeHead(200).end(), reply.hang).unref();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Where a registration's deliveries are checked with its secret, and how that path answers. */
  route(path: string, secret: string, reply: (body: any) => Reply = () => 200): void {
    this.secrets.set(path, secret);
    this.replies.set(path, reply);
  }

  reply(path: string, reply: (body: any) => Reply): void {
    this.replies.set(path, reply);
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Polls until `condition` holds on what was received (a bounded wait for an event, never a timing assertion). */
  async waitFor(condition: (received: ReceivedWebhook[]) => boolean, what: string, timeoutMs = CONDITION_DEADLINE_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition(this.received)) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${what}; received ${JSON.stringify(this.received.map((r) => [r.path, r.body.reference, r.body.name, r.status]))}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Checks the signature the way the public definition tells receivers to, independently of the sender's code. */
  private verify(path: string, headers: IncomingHttpHeaders, raw: string): boolean {
    const secret = this.secrets.get(path);
    const date = headers['x-ms-date'];
    if (!secret || typeof date !== 'string' || typeof headers.host !== 'string') return false;
    const hash = createHash('sha256').update(raw, 'utf8').digest('base64');
    const signature = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(`POST\n${path}\n${date};${headers.host};${hash}`)
      .digest('base64');
    return (
      headers['x-ms-content-sha256'] === hash &&
      headers.authorization === `HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=${signature}`
    );
  }
}

/** The names of one payment's deliveries at a path, in arrival order. */
export function namesFor(received: ReceivedWebhook[], reference: string, onlyAcknowledged = false): string[] {
  return received
    .filter((r) => r.body.reference === reference && (!onlyAcknowledged || (r.status >= 200 && r.status < 300)))
    .map((r) => r.body.name);
}
