import { loadConfig, type RateLimitSettings } from '../../src/config.js';
import { sessionBody } from '../checkout/support/checkout-client.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { useTestApp } from '../support/app-fixture.js';
import { MERCHANT_A, newReference, paymentBody } from '../support/merchant-client.js';
import type { HttpResult } from '../support/principal-client.js';

/**
 * Issue 33, N2 and N5: a quota whose key a caller without credentials can choose (a reference and MSN, a
 * subscription key, a client id) is never another principal's to spend, and the lockout of a client's secret checks
 * no more secrets than its quota, however many arrive at once. A window of a minute: nothing here waits for a reset.
 */
const LIMIT = 5;
const rateLimits: RateLimitSettings = {
  ...loadConfig({}).rateLimits,
  modifications: { points: LIMIT, windowSeconds: 60 },
  reads: { points: LIMIT, windowSeconds: 60 },
  secretFailures: { points: LIMIT, windowSeconds: 60 },
  // The test's requests come from 127.0.0.1, playing the load balancer: X-Forwarded-For names the caller.
  trustedProxies: ['127.0.0.1'],
};
const t = useTestApp({ rateLimits });

async function send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<HttpResult> {
  const res = await fetch(t.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : undefined, text };
}

/**
 * Sends `n` requests at once while a transaction holds `api_client` locked, so every secret check that starts waits
 * for it. The lock is released once `answered` of them were answered without it, or after ten seconds when fewer
 * ever will be (then the counts the test expects are wrong anyway).
 */
async function whileClientsLocked(n: number, answered: number, request: () => Promise<HttpResult>): Promise<HttpResult[]> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holder = forkEm(t.app.app.services.orm).transactional(async (em) => {
    await em.execute('lock table api_client in access exclusive mode');
    locked();
    await released;
  });
  await lockTaken;
  const bound = setTimeout(release, 10_000);
  let count = 0;
  try {
    return await times(n, async () => {
      const answer = await request();
      if (++count === answered) release();
      return answer;
    });
  } finally {
    clearTimeout(bound);
    release();
    await holder;
  }
}

const times = <T>(n: number, each: () => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: n }, each));
const statuses = (results: readonly HttpResult[]) => results.map((r) => r.status);

describe('per-reference quotas are charged only once the credentials and the sales unit were accepted', () => {
  const anonymous = { 'Merchant-Serial-Number': MERCHANT_A.msn, 'Content-Type': 'application/json', 'Idempotency-Key': 'k-1' };

  test('five token-less creates of merchant A’s reference are 401 and spend nothing: A’s own create is served', async () => {
    const reference = newReference('order');
    const refused = await times(LIMIT, () => send('POST', '/epayment/v1/payments', anonymous, { reference }));
    expect(statuses(refused)).toEqual(Array(LIMIT).fill(401));
    expect((await t.merchant.createPayment({ reference })).status).toBe(201);
  });

  test('five token-less captures of A’s payment are 401; A’s capture is served', async () => {
    const reference = await t.merchant.authorizedPayment(10_000); // the create spent one of the reference's five
    const capture = `/epayment/v1/payments/${reference}/capture`;
    const body = { modificationAmount: { currency: 'NOK', value: 100 } };
    const refused = await times(LIMIT, () => send('POST', capture, anonymous, body));
    expect(statuses(refused)).toEqual(Array(LIMIT).fill(401));
    expect((await t.merchant.modify(reference, 'capture', 100)).status).toBe(200);
  });

  test('another merchant’s valid token naming A’s MSN is 403 and spends nothing of A’s reference', async () => {
    const reference = newReference('order');
    const headers = await t.otherMerchant.headers({ 'Merchant-Serial-Number': MERCHANT_A.msn, 'Idempotency-Key': 'k-2' });
    const refused = await times(LIMIT, () => send('POST', '/epayment/v1/payments', headers, paymentBody({ reference })));
    expect(statuses(refused)).toEqual(Array(LIMIT).fill(403));
    expect((await t.merchant.createPayment({ reference })).status).toBe(201);
  });

  test('token-less reads with A’s subscription key are 401 and spend nothing of A’s reads', async () => {
    const reference = await t.merchant.authorizedPayment(10_000);
    const headers = { 'Merchant-Serial-Number': MERCHANT_A.msn, 'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey };
    const refused = await times(LIMIT, () => send('GET', `/epayment/v1/payments/${reference}`, headers));
    expect(statuses(refused)).toEqual(Array(LIMIT).fill(401));
    expect((await t.merchant.getPayment(reference)).status).toBe(200);
  });

  test('an accepted caller still meets the quota: the sixth modification of a reference is 429 with Retry-After', async () => {
    const reference = await t.merchant.authorizedPayment(10_000);
    const served = [];
    for (let i = 1; i < LIMIT; i++) served.push((await t.merchant.modify(reference, 'capture', 100)).status);
    expect(served).toEqual(Array(LIMIT - 1).fill(200));
    const refused = await t.merchant.modify(reference, 'capture', 100);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-policy')).toBe(`"modifications";q=${LIMIT};w=60`);
  });
});

describe('the lockout of a client secret', () => {
  const tokenRequest = (secret: string, address: string) =>
    send('POST', '/accesstoken/get', {
      client_id: MERCHANT_A.clientId,
      client_secret: secret,
      'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey,
      'X-Forwarded-For': address,
    });
  const checkoutRequest = (secret: string, address: string) =>
    send(
      'POST',
      '/checkout/v3/session',
      {
        client_id: MERCHANT_A.clientId,
        client_secret: secret,
        'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey,
        'Merchant-Serial-Number': MERCHANT_A.msn,
        'Content-Type': 'application/json',
        'X-Forwarded-For': address,
      },
      sessionBody(),
    );

  test.each([
    ['the token endpoint', tokenRequest, '198.51.100.10'],
    ['a checkout route', checkoutRequest, '198.51.100.20'],
  ])('at %s: of 30 wrong secrets at once, only the quota’s 5 are checked (401), the rest are 429', async (_face, request, address) => {
    // The clients table is locked while the 30 arrive, so every secret check that starts waits for it: without the
    // reservation all 30 would be past the lockout's count before the first failure counted.
    const answers = await whileClientsLocked(30, 30 - LIMIT, () => request('wrong-secret', address));
    const counted = statuses(answers).reduce<Record<number, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {});
    expect(counted).toEqual({ 401: LIMIT, 429: 30 - LIMIT });
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.headers.get('ratelimit-policy')).toBe(`"secretFailures";q=${LIMIT};w=60`);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Locked for that caller even with the right secret, which is then not checked either.
    expect((await request(MERCHANT_A.clientSecret, address)).status).toBe(429);
  });

  test.each([
    ['the token endpoint', tokenRequest, '198.51.100.30', 200],
    ['a checkout route', checkoutRequest, '198.51.100.40', 200],
  ])(
    'at %s: wrong secrets from one address do not lock the client out from its own, and accepted secrets spend nothing',
    async (_face, request, address, served) => {
      await times(LIMIT, () => request('wrong-secret', address));
      expect((await request(MERCHANT_A.clientSecret, address)).status).toBe(429);
      // The client itself, elsewhere, many times over: an accepted secret gives its reservation back.
      const own = [];
      for (let i = 0; i < LIMIT + 2; i++) own.push((await request(MERCHANT_A.clientSecret, '203.0.113.99')).status);
      expect(own).toEqual(Array(LIMIT + 2).fill(served));
    },
  );
});
