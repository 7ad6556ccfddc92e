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
