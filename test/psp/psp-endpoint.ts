import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

/** One make-payment callback the PSP endpoint received. */
export interface ReceivedCallback {
  path: string;
  authorization: string | undefined;
  body: any;
}

/** How the PSP answers a callback: its paymentInfo.status, a bare HTTP status, or not before `hang` ms. */
export type PspAnswer = 'OK' | 'FAIL' | { status: number } | { hang: number };

/** A real PSP endpoint on loopback that receives the make-payment callback and answers as the test says. */
export class PspEndpoint {
  readonly received: ReceivedCallback[] = [];
  private readonly answers = new Map<string, PspAnswer>();
  private server: http.Server | undefined;
  private port = 0;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        this.received.push({ path, authorization: req.headers.authorization, body });
        const answer = this.answers.get(path) ?? 'OK';
        if (typeof answer === 'string') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ paymentInfo: { pspTransactionId: body.pspTransactionId, status: answer } }));
        } else if ('status' in answer) {
          res.writeHead(answer.status).end();
        } else {
          setTimeout(() => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ paymentInfo: { pspTransactionId: body.pspTransactionId, status: 'OK' } }));
          }, answer.hang).unref();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  answer(path: string, answer: PspAnswer): void {
    this.answers.set(path, answer);
  }

  at(path: string): ReceivedCallback[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

export async function eventually(
  condition: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = CONDITION_DEADLINE_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
