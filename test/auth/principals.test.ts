import { headerLookup } from '../../src/platform/auth/header-lookup.js';
import type { HeaderRules } from '../../src/platform/auth/header-rules.js';
import { createRequestContext, type AuthRule } from '../../src/platform/auth/request-context.js';
import { actingFor } from '../../src/platform/auth/tenancy-scope.js';
import { MERCHANT_A, MerchantClient, newReference, type HttpResult, type TestMerchant } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Principals other than merchants (TEST-ENVIRONMENT.md): a partner, a PSP, and a merchant's checkout client. */

const PARTNER = { clientId: 'test-client-partner', clientSecret: 'test-secret-partner', subscriptionKey: 'test-key-partner', id: '100200' };
const PSP = {
  clientId: 'test-client-psp',
  clientSecret: 'test-secret-psp',
  subscriptionKey: 'test-key-psp',
  id: '6c3f0a2e-5b7d-4e8a-9c1f-2d4b6a8e0c13',
};
const partnerFor = (msn: string): TestMerchant => ({ msn, ...PARTNER });

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
});
afterAll(() => t.close());

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

async function tokenResponse(
  client: { clientId: string; clientSecret: string; subscriptionKey: string },
  msn?: string,
): Promise<HttpResult> {
  const headers: Record<string, string> = {
    client_id: client.clientId,
    client_secret: client.clientSecret,
    'Ocp-Apim-Subscription-Key': client.subscriptionKey,
  };
  if (msn) headers['Merchant-Serial-Number'] = msn;
  return new MerchantClient(t.baseUrl).raw('POST', '/accesstoken/get', undefined, headers);
}

describe('access tokens name the principal', () => {
  test.each([
    ['merchant A', MERCHANT_A, 'merchant', '0b0e8a5c-1f4e-4c57-9d1a-000000123456'],
    ['the partner', PARTNER, 'partner', PARTNER.id],
    ['the PSP', PSP, 'psp', PSP.id],
  ])('%s gets a token whose claims carry its kind and id', async (_, client, kind, id) => {
    const res = await tokenResponse(client);
    expect(res.status).toBe(200);
    expect(claimsOf(res.body.access_token)).toEqual(expect.objectContaining({ sub: client.clientId, knd: kind, pid: id }));
  });

  test('a token request naming an MSN checks it for the principal: a partner for its connected units only', async () => {
    expect((await tokenResponse(PARTNER, '654321')).status).toBe(200);
    const unconnected = await tokenResponse(PARTNER, '112233');
    expect(unconnected.status).toBe(403);
    expect(unconnected.body.extraDetails).toEqual([{ name: 'Merchant-Serial-Number', reason: 'Not a sales unit of the caller' }]);
    expect((await tokenResponse(PSP, '112233')).status).toBe(200);
    expect((await tokenResponse(PSP, '123456')).status).toBe(403);
  });
});

describe('the ePayment interface', () => {
  test('accepts a partner for a connected MSN: it creates and reads payments of that sales unit', async () => {
    const partner = new MerchantClient(t.baseUrl, partnerFor('654321'));
    const reference = newReference('partner');
    expect((await partner.createPayment({ reference })).status).toBe(201);
    const read = await partner.getPayment(reference);
    expect(read.status).toBe(200);
    expect(read.body.reference).toBe(reference);
    // The payment is the sales unit's: its merchant sees it, the other merchant does not.
    expect((await new MerchantClient(t.baseUrl, { ...MERCHANT_A, msn: '123456' }).getPayment(reference)).status).toBe(404);
  });

  test('refuses a partner for an MSN not connected to it with 403 FORBIDDEN_SALES_UNIT, as a merchant for a foreign MSN', async () => {
    const res = await new MerchantClient(t.baseUrl, partnerFor('112233')).getPayment(newReference());
    expect(res.status).toBe(403);
    expect(res.body.title).toBe('Forbidden');
    expect(res.body.extraDetails).toEqual([{ name: 'Merchant-Serial-Number', reason: 'Not a sales unit of the caller' }]);
  });

  test("refuses a PSP with 403 even for its own merchant's sales unit", async () => {
    const res = await new MerchantClient(t.baseUrl, { msn: '112233', ...PSP }).getPayment(newReference());
    expect(res.status).toBe(403);
    expect(res.body.extraDetails).toEqual([{ name: 'Authorization', reason: 'Not accepted here: credentials of a psp' }]);
  });
});

describe('createRequestContext', () => {
  const headers: HeaderRules = { msn: 'required', systemHeaders: { presence: 'optional', maxLength: 30 } };
  const context = (auth: AuthRule, values: Record<string, string>, rules: HeaderRules = headers) =>
    createRequestContext(t.app.services, headerLookup(values), { traceId: 'trace', auth, headers: rules, callerAddress: '127.0.0.1' });
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e as { status: number; code: string },
    );
    return error && { status: error.status, code: error.code };
  };

  describe('a checkout client (client_id and client_secret on every request, no token)', () => {
    const checkout: AuthRule = { method: 'clientCredentials', accepts: ['checkoutClient'] };
    const credentials = {
      client_id: MERCHANT_A.clientId,
      client_secret: MERCHANT_A.clientSecret,
      'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey,
    };

    test("acts for its merchant's sales unit", async () => {
      const { ctx } = await context(checkout, { ...credentials, 'Merchant-Serial-Number': '123456' });
      expect(ctx.principal).toEqual({
        kind: 'checkoutClient',
        clientId: MERCHANT_A.clientId,
        merchantId: '0b0e8a5c-1f4e-4c57-9d1a-000000123456',
      });
      expect(actingFor(ctx.scope)).toBe('123456');
    });

    test.each([
      ['a wrong secret', { client_secret: 'wrong' }],
      ['no client_id', { client_id: '' }],
      ['a wrong subscription key', { 'Ocp-Apim-Subscription-Key': 'test-key-654321' }],
      [
        "a partner's credentials",
        { client_id: PARTNER.clientId, client_secret: PARTNER.clientSecret, 'Ocp-Apim-Subscription-Key': PARTNER.subscriptionKey },
      ],
    ])('is refused with 401 for %s', async (_, change) => {
      expect(await refusal(context(checkout, { ...credentials, 'Merchant-Serial-Number': '123456', ...change }))).toEqual({
        status: 401,
        code: 'INVALID_CLIENT_CREDENTIALS',
      });
    });

    test("is refused with 403 for another merchant's sales unit", async () => {
      expect(await refusal(context(checkout, { ...credentials, 'Merchant-Serial-Number': '654321' }))).toEqual({
        status: 403,
        code: 'FORBIDDEN_SALES_UNIT',
      });
    });
  });

  describe('a PSP on an interface that serves PSPs (Psp-Id required)', () => {
    const pspAuth: AuthRule = { method: 'bearer', accepts: ['psp'] };
    const pspRules: HeaderRules = { ...headers, pspId: 'required' };
    let bearer: Record<string, string>;
    beforeAll(async () => {
      const res = await tokenResponse(PSP);
      bearer = { Authorization: `Bearer ${res.body.access_token}`, 'Ocp-Apim-Subscription-Key': PSP.subscriptionKey };
    });

    test('acts for the sales unit of a merchant it signed up, sending its own Psp-Id', async () => {
      const { ctx, headers: read } = await context(pspAuth, { ...bearer, 'Merchant-Serial-Number': '112233', 'Psp-Id': PSP.id }, pspRules);
      expect(ctx.principal).toEqual(expect.objectContaining({ kind: 'psp', pspId: PSP.id }));
      expect(read.pspId).toBe(PSP.id);
      expect(actingFor(ctx.scope)).toBe('112233');
    });

    test.each([
      ['no Psp-Id', {}, { status: 400, code: 'VALIDATION_FAILED' }],
      ["another PSP's id", { 'Psp-Id': '00000000-0000-4000-8000-000000000000' }, { status: 403, code: 'FORBIDDEN_PRINCIPAL' }],
      [
        "a sales unit not of the PSP's merchants",
        { 'Psp-Id': PSP.id, 'Merchant-Serial-Number': '123456' },
        { status: 403, code: 'FORBIDDEN_SALES_UNIT' },
      ],
    ])('is refused for %s', async (_, change, expected) => {
      expect(await refusal(context(pspAuth, { ...bearer, 'Merchant-Serial-Number': '112233', ...change }, pspRules))).toEqual(expected);
    });

    test('a merchant is refused on it (403), whatever its sales unit', async () => {
      const merchant = new MerchantClient(t.baseUrl);
      const values = { ...(await merchant.headers()), 'Psp-Id': PSP.id };
      expect(await refusal(context(pspAuth, values, pspRules))).toEqual({ status: 403, code: 'FORBIDDEN_PRINCIPAL' });
    });
  });

  test('credentials come first: without a token the request is a 401 naming it, whatever is wrong with its headers', async () => {
    const rules: HeaderRules = { msn: 'required', systemHeaders: { presence: 'required', maxLength: 30 }, userToken: 'required' };
    const error = await context(
      { method: 'bearer', accepts: ['merchant'] },
      { 'Merchant-Serial-Number': 'x', 'Svc-System-Name': 'shop' },
      rules,
    ).then(
      () => Promise.reject(new Error('expected a refusal')),
      (e: unknown) => e as { status: number; details: { name: string }[] },
    );
    expect(error.status).toBe(401);
    expect(error.details.map((d) => d.name)).toEqual(['Authorization']);
  });

  test('then the scope, then the header rules: every header problem of an authenticated caller is one 400', async () => {
    const merchant = new MerchantClient(t.baseUrl);
    const rules: HeaderRules = { msn: 'required', systemHeaders: { presence: 'required', maxLength: 30 }, userToken: 'required' };
    const auth: AuthRule = { method: 'bearer', accepts: ['merchant'] };
    const credentials = await merchant.headers();
    expect(await refusal(context(auth, { ...credentials, 'Merchant-Serial-Number': '654321' }, rules))).toEqual({
      status: 403,
      code: 'FORBIDDEN_SALES_UNIT',
    });
    const error = await context(auth, { ...credentials, 'Merchant-Serial-Number': '123456', 'Svc-System-Name': 'shop' }, rules).then(
      () => Promise.reject(new Error('expected a refusal')),
      (e: unknown) => e as { status: number; details: { name: string }[] },
    );
    expect(error.status).toBe(400);
    expect(error.details.map((d) => d.name)).toEqual([
      'Svc-System-Version',
      'Svc-System-Plugin-Name',
      'Svc-System-Plugin-Version',
      'User-Token',
    ]);
  });
});
