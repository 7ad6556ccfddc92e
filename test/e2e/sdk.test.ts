import { randomUUID } from 'node:crypto';
import { Client } from '@vippsmobilepay/sdk';
import { MERCHANT_A } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The official TypeScript SDK of the original platform, unchanged, against this service. Its host is fixed, so a
 * wrapped global `fetch` rewrites the host to the test app and records what the SDK sent.
 */
const SDK_HOST = 'https://apitest.vipps.no';

interface SentRequest {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

let testApp: TestApp;
const realFetch = globalThis.fetch;
const sent: SentRequest[] = [];

beforeAll(async () => {
  testApp = await startTestApp();
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(SDK_HOST)) return realFetch(request);
    const path = request.url.slice(SDK_HOST.length);
    const body = request.method === 'GET' ? '' : await request.text();
    sent.push({ method: request.method, path, headers: request.headers, body });
    return realFetch(testApp.baseUrl + path, {
      method: request.method,
      headers: request.headers,
      body: request.method === 'GET' ? undefined : body,
    });
  };
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  await testApp.close();
});

function sdkClient() {
  return Client({
    merchantSerialNumber: MERCHANT_A.msn,
    subscriptionKey: MERCHANT_A.subscriptionKey,
    useTestMode: true,
    retryRequests: false,
  });
}

function expectOk<T>(result: { ok: true; data: T } | { ok: false; error: unknown }): T {
  if (!result.ok) throw new Error(`SDK call failed: ${JSON.stringify(result.error)}`);
  return result.data;
}

test('access token, create, force approve, info, capture, refund, history through the SDK', async () => {
  const client = sdkClient();
  const token = expectOk(await client.auth.getToken(MERCHANT_A.clientId, MERCHANT_A.clientSecret));
  expect(token.token_type).toBe('Bearer');
  expect(typeof token.access_token).toBe('string');

  const reference = `sdk-${randomUUID()}`;
  const created = expectOk(
    await client.payment.create(token.access_token, {
      reference,
      amount: { currency: 'NOK', value: 10_000 },
      paymentMethod: { type: 'WALLET' },
      customer: { phoneNumber: '4791234567' },
      userFlow: 'WEB_REDIRECT',
      returnUrl: 'https://merchant.example/return',
      paymentDescription: 'Two tickets',
    }),
  );
  expect(created.reference).toBe(reference);
  expect(created.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/wallet\/landing\?token=/);

  // The test user 4791234567 has approved a payment before, so force approve works without the landing page.
  expectOk(await client.payment.forceApprove(token.access_token, reference, { customer: { phoneNumber: '4791234567' } }));

  const authorized = expectOk(await client.payment.info(token.access_token, reference));
  expect(authorized.state).toBe('AUTHORIZED');
  expect(authorized.aggregate.authorizedAmount).toEqual({ currency: 'NOK', value: 10_000 });

  const captured = expectOk(
    await client.payment.capture(token.access_token, reference, { modificationAmount: { currency: 'NOK', value: 6_000 } }),
  );
  expect(captured.aggregate.capturedAmount).toEqual({ currency: 'NOK', value: 6_000 });

  const refunded = expectOk(
    await client.payment.refund(token.access_token, reference, { modificationAmount: { currency: 'NOK', value: 2_500 } }),
  );
  expect(refunded.aggregate.refundedAmount).toEqual({ currency: 'NOK', value: 2_500 });

  // Cancel after a partial capture releases the uncaptured rest.
  const cancelled = expectOk(await client.payment.cancel(token.access_token, reference));
  expect(cancelled.aggregate.cancelledAmount).toEqual({ currency: 'NOK', value: 4_000 });

  const history = expectOk(await client.payment.history(token.access_token, reference));
  expect(history.map((event) => [event.name, event.amount.value])).toEqual([
    ['CREATED', 10_000],
    ['AUTHORIZED', 10_000],
    ['CAPTURED', 6_000],
    ['REFUNDED', 2_500],
    ['CANCELLED', 4_000],
  ]);
});

test('the SDK sends a JSON content type with an empty body, and empty optional headers; both are accepted', async () => {
  const client = sdkClient();
  const token = expectOk(await client.auth.getToken(MERCHANT_A.clientId, MERCHANT_A.clientSecret));
  const reference = `sdk-${randomUUID()}`;
  expectOk(
    await client.payment.create(token.access_token, {
      reference,
      amount: { currency: 'NOK', value: 1_000 },
      paymentMethod: { type: 'WALLET' },
      customer: { phoneNumber: '4791234567' },
      userFlow: 'PUSH_MESSAGE',
    }),
  );
  sent.length = 0;

  const cancelled = expectOk(await client.payment.cancel(token.access_token, reference));
  expect(cancelled.state).toBe('TERMINATED');

  const [cancel] = sent;
  expect(cancel.method).toBe('POST');
  expect(cancel.body).toBe('');
  expect(cancel.headers.get('content-type')).toBe('application/json');
  expect(cancel.headers.get('vipps-system-name')).toBe('');
  expect(cancel.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
});

test('errors reach the SDK as the documented problem body', async () => {
  const client = sdkClient();
  const token = expectOk(await client.auth.getToken(MERCHANT_A.clientId, MERCHANT_A.clientSecret));
  const missing = await client.payment.info(token.access_token, `sdk-missing-${randomUUID()}`);
  expect(missing.ok).toBe(false);

  const wrongSecret = await client.auth.getToken(MERCHANT_A.clientId, 'not-the-secret');
  expect(wrongSecret.ok).toBe(false);
});
