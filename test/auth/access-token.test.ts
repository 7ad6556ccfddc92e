import { MERCHANT_A, MERCHANT_B, MerchantClient, newReference, type HttpResult, type TestMerchant } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** `POST /accesstoken/get` and the use of its token on the merchant routes (FACTS §3). */

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const TOKEN_PATH = '/accesstoken/get';

function credentialHeaders(m: TestMerchant = MERCHANT_A): Record<string, string> {
  return { client_id: m.clientId, client_secret: m.clientSecret, 'Ocp-Apim-Subscription-Key': m.subscriptionKey };
}

function requestToken(headers: Record<string, string>): Promise<HttpResult> {
  return merchant.raw('POST', TOKEN_PATH, undefined, headers);
}

async function tokenOf(m: TestMerchant): Promise<string> {
  const res = await requestToken(credentialHeaders(m));
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _dropped, ...rest } = headers;
  return rest;
}

/** GET of a payment that does not exist: 404 once authenticated and authorized, so anything else is the auth verdict. */
function getPayment(headers: Record<string, string>): Promise<HttpResult> {
  return merchant.raw('GET', `/epayment/v1/payments/${newReference()}`, undefined, headers);
}

async function headersWith(overrides: Record<string, string | undefined>): Promise<Record<string, string>> {
  const all: Record<string, string | undefined> = { ...(await merchant.headers()), ...overrides };
  return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function expectUnauthorized(res: HttpResult): void {
  expect({ status: res.status, contentType: res.headers.get('content-type') }).toEqual({
    status: 401,
    contentType: expect.stringMatching(/json/),
  });
  expect(res.body).toEqual(expect.objectContaining({ status: 401, title: expect.any(String), traceId: expect.any(String) }));
}

function alterChar(text: string, index: number): string {
  const replacement = text[index] === 'A' ? 'B' : 'A';
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

describe('POST /accesstoken/get', () => {
  test('returns every documented field, each a string', async () => {
    const res = await requestToken(credentialHeaders());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual([
      'access_token',
      'expires_in',
      'expires_on',
      'ext_expires_in',
      'not_before',
      'resource',
      'token_type',
    ]);
    for (const value of Object.values(res.body)) expect(typeof value).toBe('string');
    const now = Math.floor(t.clock.now().getTime() / 1000);
    expect(res.body).toEqual({
      token_type: 'Bearer',
      expires_in: '3600',
      ext_expires_in: '3600',
      not_before: String(now),
      expires_on: String(now + 3600),
      resource: expect.stringMatching(/^https?:\/\//),
      access_token: expect.any(String),
    });
  });

  test('the access token is a three-part JWT whose claims match the response', async () => {
    const res = await requestToken(credentialHeaders());
    const parts = (res.body.access_token as string).split('.');
    expect(parts).toHaveLength(3);
    for (const part of parts) expect(part).toMatch(/^[A-Za-z0-9_-]+$/);
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(claims).toEqual(
      expect.objectContaining({ sub: MERCHANT_A.clientId, nbf: Number(res.body.not_before), exp: Number(res.body.expires_on) }),
    );
    // No secret travels in the token: only a digest of the subscription key.
    expect(parts[1]).not.toContain(Buffer.from(MERCHANT_A.subscriptionKey).toString('base64url'));
    expect(JSON.stringify(claims)).not.toContain(MERCHANT_A.clientSecret);
  });

  test('every token is distinct', async () => {
    expect(await tokenOf(MERCHANT_A)).not.toBe(await tokenOf(MERCHANT_A));
  });

  test('an own Merchant-Serial-Number is accepted', async () => {
    expect((await requestToken({ ...credentialHeaders(), 'Merchant-Serial-Number': MERCHANT_A.msn })).status).toBe(200);
  });

  test.each([
    ['a wrong client_secret', { client_secret: 'test-secret-wrong' }],
    ['a wrong subscription key', { 'Ocp-Apim-Subscription-Key': 'test-key-wrong' }],
    ["another merchant's subscription key", { 'Ocp-Apim-Subscription-Key': MERCHANT_B.subscriptionKey }],
    ["another merchant's client_secret", { client_secret: MERCHANT_B.clientSecret }],
    ['an unknown client_id', { client_id: 'test-client-000000' }],
    ['an empty client_secret', { client_secret: '' }],
  ])('%s is a 401 with a JSON body', async (_what, overrides) => {
    expectUnauthorized(await requestToken({ ...credentialHeaders(), ...overrides }));
  });

  test.each(['client_id', 'client_secret', 'Ocp-Apim-Subscription-Key'])('a missing %s header is a 401 with a JSON body', async (name) => {
    expectUnauthorized(await requestToken(without(credentialHeaders(), name)));
  });

  test('no headers at all is a 401 with a JSON body', async () => {
    expectUnauthorized(await requestToken({}));
  });

  test("another merchant's Merchant-Serial-Number is a 403", async () => {
    const res = await requestToken({ ...credentialHeaders(), 'Merchant-Serial-Number': MERCHANT_B.msn });
    expect(res.status).toBe(403);
    expect(res.body.extraDetails).toContainEqual(expect.objectContaining({ name: 'Merchant-Serial-Number' }));
  });

  test('a malformed Merchant-Serial-Number is a 400', async () => {
    const res = await requestToken({ ...credentialHeaders(), 'Merchant-Serial-Number': '12a' });
    expect(res.status).toBe(400);
    expect(res.body.extraDetails).toContainEqual(expect.objectContaining({ name: 'Merchant-Serial-Number' }));
  });
});

describe('using the token', () => {
  test('a valid token, its subscription key and an own MSN get through (404 for a missing payment)', async () => {
    const res = await getPayment(await merchant.headers());
    expect(res.status).toBe(404);
  });

  test.each<[string, (token: string) => Record<string, string | undefined>]>([
    ['no Authorization header', () => ({ Authorization: undefined })],
    ['"Bearer " with an empty token', () => ({ Authorization: 'Bearer ' })],
    ['"Bearer" alone', () => ({ Authorization: 'Bearer' })],
    ['the token without the Bearer scheme', (token) => ({ Authorization: token })],
    ['another scheme', (token) => ({ Authorization: `Basic ${token}` })],
    ['a token that is not a JWT', () => ({ Authorization: 'Bearer not.a.jwt' })],
    ['a token with a fourth part', (token) => ({ Authorization: `Bearer ${token}.x` })],
    ['no subscription key', () => ({ 'Ocp-Apim-Subscription-Key': undefined })],
    ['a wrong subscription key', () => ({ 'Ocp-Apim-Subscription-Key': 'test-key-wrong' })],
  ])('%s is a 401', async (_what, overrides) => {
    expectUnauthorized(await getPayment(await headersWith(overrides(await merchant.accessToken()))));
  });

  test('the scheme is case-sensitive: "bearer" is a 401', async () => {
    expectUnauthorized(await getPayment(await headersWith({ Authorization: `bearer ${await merchant.accessToken()}` })));
  });

  test('a forged signature (one character changed) is a 401', async () => {
    const token = await merchant.accessToken();
    const signatureStart = token.lastIndexOf('.') + 1;
    const forged = alterChar(token, signatureStart + 5);
    expect(forged).not.toBe(token);
    expectUnauthorized(await getPayment(await headersWith({ Authorization: `Bearer ${forged}` })));
  });

  test('an altered payload with the original signature is a 401', async () => {
    const token = await merchant.accessToken();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const escalated = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 86_400 })).toString('base64url');
    expectUnauthorized(await getPayment(await headersWith({ Authorization: `Bearer ${header}.${escalated}.${signature}` })));
  });

  test("merchant A's token with merchant B's subscription key is a 401", async () => {
    const headers = await headersWith({
      'Ocp-Apim-Subscription-Key': MERCHANT_B.subscriptionKey,
      'Merchant-Serial-Number': MERCHANT_B.msn,
    });
    expectUnauthorized(await getPayment(headers));
  });

  test("another merchant's Merchant-Serial-Number is a 403", async () => {
    const res = await getPayment(await headersWith({ 'Merchant-Serial-Number': MERCHANT_B.msn }));
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.extraDetails).toContainEqual(expect.objectContaining({ name: 'Merchant-Serial-Number' }));
  });

  test("merchant B's own token works for merchant B", async () => {
    const other = new MerchantClient(t.baseUrl, MERCHANT_B);
    expect((await other.getPayment(newReference())).status).toBe(404);
  });
});

describe('GET /healthz', () => {
  test('is 200 without credentials', async () => {
    const res = await merchant.raw('GET', '/healthz');
    expect(res.status).toBe(200);
  });
});

// Last: it moves the app's clock past every token issued so far.
describe('token lifetime', () => {
  test('a token is refused once its hour is over, and a new one works', async () => {
    const token = await tokenOf(MERCHANT_A);
    const headers = await headersWith({ Authorization: `Bearer ${token}` });
    t.clock.advance(3_599_000);
    expect((await getPayment(headers)).status).toBe(404);
    t.clock.advance(2_000);
    expectUnauthorized(await getPayment(headers));
    const fresh = await headersWith({ Authorization: `Bearer ${await tokenOf(MERCHANT_A)}` });
    expect((await getPayment(fresh)).status).toBe(404);
  });
});

describe('PAYGRAPH_TOKEN_LIFETIME_SECONDS', () => {
  test('overrides the lifetime: the response says it, and the token is refused once it is over', async () => {
    const short = await startTestApp({}, { PAYGRAPH_TOKEN_LIFETIME_SECONDS: '120' });
    try {
      const client = new MerchantClient(short.baseUrl);
      const res = await client.raw('POST', TOKEN_PATH, undefined, credentialHeaders());
      const now = Math.floor(short.clock.now().getTime() / 1000);
      expect(res.body).toEqual(expect.objectContaining({ expires_in: '120', ext_expires_in: '120', expires_on: String(now + 120) }));
      const headers = { ...(await client.headers()), Authorization: `Bearer ${res.body.access_token as string}` };
      const read = () => client.raw('GET', `/epayment/v1/payments/${newReference()}`, undefined, headers);
      short.clock.advance(119_000);
      expect((await read()).status).toBe(404);
      short.clock.advance(2_000);
      expectUnauthorized(await read());
    } finally {
      await short.close();
    }
  });
});
