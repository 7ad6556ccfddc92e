import { forkEm } from '../../src/platform/db/orm.js';
import { callbackKinds, type CallbackKind } from '../../src/platform/delivery/callback-kinds.js';
import { recordCallback } from '../../src/platform/delivery/record-callback.js';
import { dispatchOutbox } from '../../src/platform/events/outbox-dispatcher.job.js';
import { MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 21 point 4: Prometheus metrics on their own port. A request shows up in its route's counter and latency
 * histogram, a graph operation under its name, and the outbox lag gauge rises while the dispatcher is held (this app
 * runs no jobs; its clock is moved) and falls back to 0 once it dispatches.
 */
let t: TestApp;
let metrics: { port: number; close(): Promise<void> };

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  metrics = await t.app.metrics.serve(0);
});
afterAll(async () => {
  await metrics.close();
  await t.close();
});

async function scrape(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${metrics.port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const [series, value] = line.split(/ (?=[^ ]+$)/);
    if (Object.entries(labels).every(([key, v]) => series!.includes(`${key}="${v}"`))) return Number(value);
  }
  return undefined;
}

test('a request counts under its interface, route pattern and status, with its latency', async () => {
  const merchant = new MerchantClient(t.baseUrl);
  const route = { interface: 'ePayment API', route: '/epayment/v1/payments/{reference}', method: 'GET', status: '404' };
  const before = sample(await scrape(), 'paygraph_http_requests_total', route) ?? 0;
  expect((await merchant.getPayment('no-such-payment')).status).toBe(404);
  const text = await scrape();
  expect(sample(text, 'paygraph_http_requests_total', route)).toBe(before + 1);
  expect(
    sample(text, 'paygraph_http_request_duration_seconds_count', {
      interface: 'ePayment API',
      route: '/epayment/v1/payments/{reference}',
      method: 'GET',
    }),
  ).toBeGreaterThanOrEqual(1);
  expect(
    sample(text, 'paygraph_http_requests_total', { interface: 'Access token API', route: '/accesstoken/get', status: '200' }),
  ).toBeGreaterThanOrEqual(1);
});

test('a graph operation counts under its name', async () => {
  const merchant = new MerchantClient(t.baseUrl);
  const res = await merchant.request('POST', '/graphql', { query: 'query MetricsProbe { __typename }', operationName: 'MetricsProbe' });
  expect(res.status).toBe(200);
  expect(sample(await scrape(), 'paygraph_graphql_operations_total', { operation: 'MetricsProbe', outcome: 'ok' })).toBe(1);
});

test('the outbox lag rises while the dispatcher is held and is 0 once it has dispatched', async () => {
  await dispatchOutbox(t.app.services);
  expect(sample(await scrape(), 'paygraph_outbox_lag_seconds', {})).toBe(0);
  const merchant = new MerchantClient(t.baseUrl);
  expect((await merchant.createPayment()).status).toBe(201);
  t.clock.advance(90_000);
  expect(sample(await scrape(), 'paygraph_outbox_lag_seconds', {})).toBeGreaterThanOrEqual(90);
  await dispatchOutbox(t.app.services);
  expect(sample(await scrape(), 'paygraph_outbox_lag_seconds', {})).toBe(0);
});

test('the delivery lag is told apart by kind, webhooks and callbacks sharing one table', async () => {
  const kind: CallbackKind = {
    name: 'test.metrics-lag',
    timeoutMs: () => 1_000,
    retry: { maxAttempts: 1, firstDelayMs: 1, maxDelayMs: 1 },
  };
  callbackKinds.register(kind);
  const merchant = new MerchantClient(t.baseUrl);
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
    url: 'http://127.0.0.1:9/hook',
    events: ['epayments.payment.created.v1'],
  });
  expect(registered.status).toBe(201);
  expect((await merchant.createPayment()).status).toBe(201);
  await dispatchOutbox(t.app.services);
  // No jobs run here: the webhook delivery stays due while the clock moves.
  t.clock.advance(60_000);
  let text = await scrape();
  expect(sample(text, 'paygraph_delivery_lag_seconds', { kind: 'webhook' })).toBeGreaterThanOrEqual(60);
  expect(sample(text, 'paygraph_delivery_lag_seconds', { kind: 'callback' })).toBe(0);
  const em = forkEm(t.app.services.orm);
  recordCallback(em, kind, { streamType: 'test-stream', streamId: 'lag', url: 'http://127.0.0.1:9/callback', body: {} }, t.clock.now());
  await em.flush();
  t.clock.advance(30_000);
  text = await scrape();
  expect(sample(text, 'paygraph_delivery_lag_seconds', { kind: 'webhook' })).toBeGreaterThanOrEqual(90);
  const callbackLag = sample(text, 'paygraph_delivery_lag_seconds', { kind: 'callback' })!;
  expect(callbackLag).toBeGreaterThanOrEqual(30);
  expect(callbackLag).toBeLessThan(90);
});
