import { jest } from '@jest/globals';
import { loadConfig, type RateLimitSettings } from '../../src/config.js';
import { clientAddress } from '../../src/platform/rate-limit/client-address.js';
import { useTestApp } from '../support/app-fixture.js';
import type { HttpResult } from '../support/principal-client.js';
import { connectionParamsOf, describeFailure, eventually as socketEventually, Subscriber } from '../support/subscriber.js';

/**
 * The one limiter on both faces (issue 20, point 10), with small limits and a short window so a test reaches them
 * and sees them reset. No assertion is about time: a reset is waited for.
 */
const WINDOW = 6;
// A reset is waited for: up to a window per test.
jest.setTimeout(60_000);
const rateLimits: RateLimitSettings = {
  ...loadConfig({}).rateLimits,
  client: { points: 6, windowSeconds: WINDOW },
  address: { points: 3, windowSeconds: WINDOW },
  modifications: { points: 2, windowSeconds: WINDOW },
  secretFailures: { points: 2, windowSeconds: WINDOW },
  graphCostPerPoint: 100,
  // The test's requests come from 127.0.0.1, playing the load balancer: X-Forwarded-For names the client.
  trustedProxies: ['127.0.0.1'],
};
const t = useTestApp({ rateLimits });

/**
 * Sends `request` until it is refused, at most `attempts` times: a window may end between two requests on a busy
 * machine, so the refusal is not expected at one fixed request.
 */
async function untilRefused(request: () => Promise<HttpResult>, attempts = 12): Promise<HttpResult> {
  let last = await request();
  for (let i = 1; i < attempts && last.status !== 429; i++) last = await request();
  return last;
}

/** Retries `request` until it is no longer refused: the window ended and the quota is back. */
async function afterReset(request: () => Promise<{ status: number }>): Promise<number> {
  const deadline = Date.now() + (WINDOW + 5) * 1000;
  for (;;) {
    const { status } = await request();
    if (status !== 429 || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function expectRefusalFields(headers: Headers, policy: string, quota: number): void {
  expect(Number(headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(headers.get('ratelimit-policy')).toBe(`"${policy}";q=${quota};w=${WINDOW}`);
  expect(headers.get('ratelimit')).toMatch(new RegExp(`^"${policy}";r=0;t=\\d+$`));
}

test('REST: per reference and MSN, then per client; a 429 in the interface’s format with Retry-After and the RateLimit fields; both reset', async () => {
  const reference = await t.merchant.authorizedPayment(10_000); // create: one modification of the reference
  const first: HttpResult = await t.merchant.modify(reference, 'capture', 100);
  expect(first.status).toBe(200);
  expect(first.headers.get('ratelimit')).toMatch(/^"client";r=\d+;t=\d+$/);
  const refused = await untilRefused(() => t.merchant.modify(reference, 'capture', 100));
  expect(refused.status).toBe(429);
  expectRefusalFields(refused.headers, 'modifications', 2);
  expect(refused.headers.get('content-type')).toBe('application/problem+json');
  expect(refused.body).toEqual(expect.objectContaining({ status: 429, title: 'Too Many Requests', traceId: expect.any(String) }));
  // The client's own quota (6) runs out too: then any of its requests is refused.
  const overClient = await untilRefused(() => t.merchant.getPayment('no-such-reference-1'));
  expect(overClient.status).toBe(429);
  expectRefusalFields(overClient.headers, 'client', 6);
  // Another client is not affected.
  expect((await t.otherMerchant.getPayment('no-such-reference-1')).status).toBe(404);

  expect(await afterReset(() => t.merchant.modify(reference, 'capture', 100))).toBe(200);
});

test('the graph: charged by cost, refused as a GraphQL error with extensions.code RATE_LIMITED, reset after the window', async () => {
  const cheap = await t.otherMerchant.graphql('{ __typename }');
  expect(cheap.status).toBe(200);
  expect(cheap.headers.get('ratelimit-policy')).toBe(`"client";q=6;w=${WINDOW}`);
  // 1 + 100 × (1 + 1 + 1 + 3) = 601: 7 points at 100 cost per point, more than the whole quota of 6.
  const costly = '{ payments(first: 100) { edges { cursor node { reference state pspReference } } } }';
  const refused = await t.otherMerchant.graphql(costly);
  expect(refused.status).toBe(429);
  expect(refused.body.errors).toEqual([
    expect.objectContaining({
      message: expect.stringMatching(/Rate limit exceeded/),
      extensions: expect.objectContaining({ code: 'RATE_LIMITED' }),
    }),
  ]);
  expect(refused.body.data).toBeUndefined();
  expectRefusalFields(refused.headers, 'client', 6);
  // The refused operation counted: cheap ones wait for the window to end.
  expect(await afterReset(() => t.otherMerchant.graphql('{ __typename }'))).toBe(200);
});

test('graphql-ws: a subscription is charged its cost on the same quota and refused with RATE_LIMITED', async () => {
  const params = await connectionParamsOf(t.partner.forSalesUnit('123456') as never);
  // 1 + 1 + 1 + 100 × (1 + 1 + 1 + 3) = 603: 7 points, more than the quota; a cheap one (1 point) is served.
  const costly = 'subscription { paymentEvents { payment { events(first: 100) { edges { cursor node { name timestamp reference } } } } } }';
  const subscribed = t.app.app.services.events.subscriberCount;
  const cheap = new Subscriber(t.baseUrl, params).subscribe('subscription { paymentEvents { __typename } }');
  let refused: Subscriber | undefined;
  try {
    // The cheap one first: a refused operation is charged too (the test above), so after the costly one even
    // a cheap one waits for the window to end.
    await socketEventually(() => t.app.app.services.events.subscriberCount > subscribed, 'the cheap subscription to be served');
    refused = new Subscriber(t.baseUrl, params).subscribe(costly);
    await socketEventually(() => refused!.failure !== undefined, 'the costly subscription to be refused');
    expect(describeFailure(refused.failure)).toMatch(/"code":"RATE_LIMITED"/);
    expect(cheap.failure).toBeUndefined();
  } finally {
    await Promise.all([cheap.close(), refused?.close()]);
  }
});

test('per address without a token, from X-Forwarded-For of the trusted proxy only; a forged left-most entry does not help', async () => {
  const from = (forwardedFor: string) =>
    fetch(`${t.baseUrl}/epayment/v1/payments/some-reference-1`, { headers: { 'X-Forwarded-For': forwardedFor } });
  // Refused for their missing credentials (401), each charged to the client's address.
  expect((await from('203.0.113.7')).status).toBe(401);
  const refused = await untilRefused(async () => {
    const res = await from('203.0.113.7');
    return { status: res.status, headers: res.headers, body: undefined, text: '' };
  });
  expect(refused.status).toBe(429);
  expectRefusalFields(refused.headers, 'address', 3);
  expect((await from('10.9.9.9, 203.0.113.7')).status).toBe(429);
  // Another client address behind the same balancer has its own quota.
  expect((await from('203.0.113.8')).status).toBe(401);
  expect(await afterReset(() => from('203.0.113.7'))).toBe(401);
});

test('refused client secrets at the token endpoint are throttled per client id and caller address; another address is not', async () => {
  const token = (secret: string, address: string) =>
    fetch(`${t.baseUrl}/accesstoken/get`, {
      method: 'POST',
      headers: {
        client_id: 'test-client-654321',
        client_secret: secret,
        'Ocp-Apim-Subscription-Key': 'test-key-654321',
        'X-Forwarded-For': address,
      },
    });
  const refused = await untilRefused(async () => {
    const res = await token('wrong-1', '198.51.100.1');
    return { status: res.status, headers: res.headers, body: undefined, text: '' };
  });
  expect(refused.status).toBe(429);
  expectRefusalFields(refused.headers, 'secretFailures', 2);
  // Whoever sent them holds off only itself: the client, from its own address, is served.
  expect((await token('test-secret-654321', '198.51.100.2')).status).toBe(200);
  expect(await afterReset(() => token('test-secret-654321', '198.51.100.1'))).toBe(200);
});

test.each([
  ['the peer itself when no proxy is trusted', '203.0.113.1', '198.51.100.9', [], '203.0.113.1'],
  ['the right-most untrusted hop', '10.0.0.1', '198.51.100.9, 203.0.113.5', ['10.0.0.0/8'], '203.0.113.5'],
  ['past several trusted hops', '10.0.0.1', '203.0.113.5, 10.0.0.2', ['10.0.0.0/8'], '203.0.113.5'],
  ['the peer when it is not a trusted proxy', '203.0.113.1', '198.51.100.9', ['10.0.0.0/8'], '203.0.113.1'],
  ['IPv4-mapped peers as IPv4', '::ffff:10.0.0.1', '203.0.113.5', ['10.0.0.1'], '203.0.113.5'],
])('the client address is %s', (_case, peer, forwardedFor, trusted, expected) => {
  expect(clientAddress(peer, forwardedFor, trusted)).toBe(expected);
});
