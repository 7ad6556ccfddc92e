/**
 * Webhook delivery latency, a section of `npm run bench`: a receiver on loopback registered for CAPTURED events,
 * then captures one at a time, each at a random point of the job interval (the production default unless
 * `PAYGRAPH_JOB_INTERVAL_MS` says otherwise), so none runs in step with the dispatcher. Reports the time from the
 * capture's commit (bounded by its request start and its response) to the receiver's receipt.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { percentiles, type Percentiles } from './percentiles.js';
import { paymentBody } from './payment-body.js';

const CAPTURES = Number(process.env.BENCH_WEBHOOK_CAPTURES ?? 40);
const RECEIPT_TIMEOUT_MS = 10_000;

export interface WebhookLatencyResult {
  captures: number;
  fromRequest: Percentiles;
  fromResponse: Percentiles;
}

type Call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<Record<string, unknown>>;

/** `call` speaks to the instance under test with `headers`, a merchant's credentials. */
export async function runWebhookLatency(call: Call, headers: Record<string, string>): Promise<WebhookLatencyResult> {
  const received = new Map<string, number>();
  const receiver = await listen((reference, at) => received.set(reference, at));
  const port = (receiver.address() as AddressInfo).port;
  const registration = await call('POST', '/webhooks/v1/webhooks', headers, {
    url: `http://127.0.0.1:${port}/paygraph-events`,
    events: ['epayments.payment.captured.v1'],
  });
  try {
    const fromRequest: number[] = [];
    const fromResponse: number[] = [];
    for (let i = 0; i < CAPTURES; i++) {
      const reference = `bench-hook-${i}-${randomUUID()}`.slice(0, 50);
      await call(
        'POST',
        '/epayment/v1/payments',
        { ...headers, 'Idempotency-Key': randomUUID() },
        paymentBody(reference, 1_000, 'Benchmark webhook latency'),
      );
      await call('POST', `/epayment/v1/test/payments/${reference}/approve`, headers, { customer: { phoneNumber: '4791234567' } });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 250));
      const start = performance.now();
      await call(
        'POST',
        `/epayment/v1/payments/${reference}/capture`,
        { ...headers, 'Idempotency-Key': randomUUID() },
        {
          modificationAmount: { currency: 'NOK', value: 1_000 },
        },
      );
      const end = performance.now();
      const at = await receipt(received, reference);
      fromRequest.push(at - start);
      fromResponse.push(at - end);
    }
    return { captures: CAPTURES, fromRequest: percentiles(fromRequest), fromResponse: percentiles(fromResponse) };
  } finally {
    await call('DELETE', `/webhooks/v1/webhooks/${String(registration.id)}`, headers);
    await new Promise((resolve) => receiver.close(resolve));
  }
}

export function renderWebhookLatency(r: WebhookLatencyResult): string {
  const ms = (p: Percentiles) => `${p.p50.toFixed(1)} | ${p.p99.toFixed(1)} | ${p.max.toFixed(1)}`;
  return [
    '### Webhook delivery latency',
    '',
    `${r.captures} captures, one at a time at random points of the job interval, each delivered as a signed POST to a receiver ` +
      'on loopback. The commit happens between the capture request starting and its response.',
    '',
    '| latency to the receiver | p50 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|',
    `| from the capture's request start | ${ms(r.fromRequest)} |`,
    `| from the capture's response | ${ms(r.fromResponse)} |`,
  ].join('\n');
}

function listen(onEvent: (reference: string, at: number) => void): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { reference: string; name: string };
      if (event.name === 'CAPTURED') onEvent(event.reference, at);
      res.writeHead(200).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function receipt(received: Map<string, number>, reference: string): Promise<number> {
  const deadline = performance.now() + RECEIPT_TIMEOUT_MS;
  while (!received.has(reference)) {
    if (performance.now() > deadline) throw new Error(`no webhook for ${reference} within ${RECEIPT_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return received.get(reference)!;
}
