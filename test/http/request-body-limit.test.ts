import { randomUUID } from 'node:crypto';
import { MerchantClient, newReference, paymentBody } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** A body over 1 MiB is answered with a readable 413 on every face, never a reset connection. */
let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const oversized = (reference: string) => JSON.stringify({ ...paymentBody({ reference }), paymentDescription: 'x'.repeat(8_000_000) });

test('REST: 413 with the problem body, and nothing is created', async () => {
  const reference = newReference('big');
  const res = await fetch(`${t.baseUrl}/epayment/v1/payments`, {
    method: 'POST',
    headers: { ...(await merchant.headers()), 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
    body: oversized(reference),
  });
  expect(res.status).toBe(413);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(await res.json()).toMatchObject({ status: 413, title: 'Payload Too Large', traceId: expect.any(String) });
  expect((await merchant.getPayment(reference)).status).toBe(404);
});

test('the graph: 413 too', async () => {
  const res = await fetch(`${t.baseUrl}/graphql`, {
    method: 'POST',
    headers: { ...(await merchant.headers()), 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ payments(first: 1) { edges { cursor } } }', variables: { padding: 'x'.repeat(8_000_000) } }),
  });
  expect(res.status).toBe(413);
});

test('a body just under the limit is read whole', async () => {
  const reference = newReference('fits');
  const body = JSON.stringify({ ...paymentBody({ reference }), metadata: { padding: 'x'.repeat(400) }, filler: 'x'.repeat(1_000_000) });
  const res = await fetch(`${t.baseUrl}/epayment/v1/payments`, {
    method: 'POST',
    headers: { ...(await merchant.headers()), 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
    body,
  });
  // Read and parsed: the refusal is about the content, not the size.
  expect(res.status).not.toBe(413);
  expect(res.status).toBeLessThan(500);
});
