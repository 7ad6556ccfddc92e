import { MerchantClient } from '../support/merchant-client.js';
import { PspClient, TEST_PSP } from '../support/psp-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { epaymentProblem } from '../../src/platform/rest/error-formats/epayment-problem.js';
import { invalidParamsProblem } from '../../src/platform/rest/error-formats/invalid-params-problem.js';
import type { HttpResponse } from '../../src/platform/rest/http-types.js';
import type { PageRoute } from '../../src/platform/rest/page-route.js';
import { defineRestInterface, type RestInterface } from '../../src/platform/rest/rest-interface.js';
import { Router } from '../../src/platform/rest/router.js';

/** Paths as the platform's gateway matches them: letter case, enum parameters, a trailing slash, fixed before parameter. */

let t: TestApp;
let client: MerchantClient;
beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  client = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const ok = async (): Promise<HttpResponse> => ({ status: 200 });
const paymentType = {
  accepts: (v: string) => v === 'ecom' || v === 'recurring',
  reason: 'ecom or recurring',
  jsonSchema: { enum: ['ecom', 'recurring'] },
};

/** A router over one public interface declared with the routes given, in that order. */
function routerOf(...routes: { method: 'GET' | 'POST'; path: string; params?: Record<string, typeof paymentType> }[]): Router {
  const router = new Router();
  const declared: RestInterface = defineRestInterface(
    t.app.services,
    { name: 'Test', prefix: '/test/v1', errorFormat: invalidParamsProblem, auth: 'public' },
    (route) =>
      routes.map((r) =>
        route({ ...r, summary: r.path, idempotent: false, success: { status: 200, description: 'ok' }, handler: ok, params: r.params }),
      ),
  );
  router.add(declared);
  return router;
}

const matched = (router: Router, method: string, path: string) => {
  const match = router.match({ method, path });
  return match && 'route' in match ? { pattern: match.route.pattern, params: match.params } : match;
};

describe('the router', () => {
  test('fixed segments match in any letter case; the prefix too', () => {
    const router = routerOf({ method: 'POST', path: '/accessToken/get' });
    for (const path of ['/test/v1/accessToken/get', '/test/v1/accesstoken/get', '/TEST/V1/ACCESSTOKEN/GET']) {
      expect(matched(router, 'POST', path)).toEqual({ pattern: '/test/v1/accessToken/get', params: {} });
    }
    expect(router.interfaceFor('/Test/V1/anything')?.name).toBe('Test');
    expect(matched(router, 'POST', '/test/v1/accessToken/gets')).toBeUndefined();
  });

  test('every route takes an optional trailing slash, declared with one or not', () => {
    const router = routerOf({ method: 'GET', path: '/userinfo/' }, { method: 'GET', path: '/things/{id}' });
    expect(matched(router, 'GET', '/test/v1/userinfo')).toEqual({ pattern: '/test/v1/userinfo/', params: {} });
    expect(matched(router, 'GET', '/test/v1/userinfo/')).toEqual({ pattern: '/test/v1/userinfo/', params: {} });
    expect(matched(router, 'GET', '/test/v1/things/a1/')).toEqual({ pattern: '/test/v1/things/{id}', params: { id: 'a1' } });
    expect(matched(router, 'GET', '/test/v1/things//')).toBeUndefined();
  });

  test('an enum parameter matches in any case and is handed over as declared; any other parameter exactly as sent', () => {
    const router = routerOf({ method: 'GET', path: '/v2/{paymentType}/{orderId}', params: { paymentType } });
    expect(matched(router, 'GET', '/test/v1/v2/eCom/Order-ABC')).toEqual({
      pattern: '/test/v1/v2/{paymentType}/{orderId}',
      params: { paymentType: 'ecom', orderId: 'Order-ABC' },
    });
    expect(matched(router, 'GET', '/test/v1/V2/RECURRING/x%20y')).toEqual(
      expect.objectContaining({ params: { paymentType: 'recurring', orderId: 'x y' } }),
    );
    // Not one of the values: kept as sent, for the parameter rule to refuse with a 400 naming it.
    expect(matched(router, 'GET', '/test/v1/v2/Other/1')).toEqual(
      expect.objectContaining({ params: { paymentType: 'Other', orderId: '1' } }),
    );
  });

  test('a fixed segment wins over a parameter, whatever the order of declaration', () => {
    const router = routerOf(
      { method: 'GET', path: '/merchants/{scheme}/{id}' },
      { method: 'GET', path: '/merchants/{orgno}' },
      { method: 'GET', path: '/merchants/{orgno}/sales-units' },
      { method: 'GET', path: '/merchants/mine' },
    );
    expect(matched(router, 'GET', '/test/v1/merchants/920000002/sales-units')).toEqual({
      pattern: '/test/v1/merchants/{orgno}/sales-units',
      params: { orgno: '920000002' },
    });
    expect(matched(router, 'GET', '/test/v1/merchants/920000002/Sales-Units/')).toEqual(
      expect.objectContaining({ pattern: '/test/v1/merchants/{orgno}/sales-units' }),
    );
    expect(matched(router, 'GET', '/test/v1/merchants/no-orgno/920000002')).toEqual({
      pattern: '/test/v1/merchants/{scheme}/{id}',
      params: { scheme: 'no-orgno', id: '920000002' },
    });
    expect(matched(router, 'GET', '/test/v1/merchants/MINE')).toEqual({ pattern: '/test/v1/merchants/mine', params: {} });
    expect(matched(router, 'GET', '/test/v1/merchants/920000002')).toEqual({
      pattern: '/test/v1/merchants/{orgno}',
      params: { orgno: '920000002' },
    });
  });

  test('a path of another method is a 405 with the methods allowed; pages match by the same rule', () => {
    const router = routerOf({ method: 'GET', path: '/things/{id}' });
    expect(router.match({ method: 'POST', path: '/test/v1/Things/1/' })).toEqual({ allowed: ['GET'] });
    const page: PageRoute = { method: 'GET', pattern: '/wallet/landing', run: ok };
    router.addPages(page);
    expect(router.match({ method: 'GET', path: '/Wallet/Landing/' })).toEqual({ route: page, params: {} });
  });
});

describe('through HTTP, on the real interfaces', () => {
  test('POST /accessToken/get, as every Postman collection and plugin spells it, issues a token', async () => {
    const res = await client.raw('POST', '/accessToken/get', undefined, {
      client_id: client.credentials.clientId,
      client_secret: client.credentials.clientSecret,
      'Ocp-Apim-Subscription-Key': client.credentials.subscriptionKey,
    });
    expect(res.status).toBe(200);
    expect(typeof res.body.access_token).toBe('string');
  });

  test('/psp/v3/psppayments/updateStatus reaches the PSP status update', async () => {
    const psp = new PspClient(t.baseUrl);
    const res = await psp.request(
      'POST',
      '/psp/v3/psppayments/updateStatus',
      { transactions: [] },
      { 'Merchant-Serial-Number': TEST_PSP.merchantMsn },
    );
    // The route, its front and its body rules answered: a 400 of the PSP error array, not a 404.
    expect(res.status).toBe(400);
    expect(Array.isArray(res.body)).toBe(true);
  });

  test('order management under /eCom/ answers for the payment type ecom; an unknown type is its 400', async () => {
    const lower = await client.request('GET', '/order-management/v2/ecom/no-such-order-1');
    expect(lower.status).toBe(404);
    expect(lower.body.detail).toBe('No order no-such-order-1 of type ecom');
    for (const path of ['/order-management/v2/eCom/no-such-order-1', '/Order-Management/V2/ECOM/no-such-order-1/']) {
      const res = await client.request('GET', path);
      expect({ path, status: res.status, detail: res.body.detail }).toEqual({
        path,
        status: 404,
        detail: 'No order no-such-order-1 of type ecom',
      });
    }
    const unknown = await client.request('GET', '/order-management/v2/eComm/no-such-order-1');
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('paymentType');
  });

  test('a 404 or 405 under a prefix spelled in another case is still in that interface’s format', async () => {
    const missing = await client.raw('GET', '/WEBHOOKS/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(expect.objectContaining({ status: 404, extraDetails: [] }));
    const wrongMethod = await client.raw('DELETE', '/ePayment/V1/payments');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });

  test('openapi.json is found in any case and with a trailing slash', async () => {
    const res = await client.raw('GET', '/ePayment/v1/OpenAPI.json/');
    expect(res.status).toBe(200);
    expect(res.body.paths['/epayment/v1/payments']).toBeDefined();
  });

  test('the fallback of an unknown path outside every prefix is unchanged', async () => {
    const res = await client.raw('GET', '/Nowhere/');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(expect.objectContaining({ status: 404 }));
    expect(epaymentProblem.contentType).toBe(res.headers.get('content-type'));
  });
});
