import { Compile } from 'typebox/compile';
import { PaymentResponse } from '../../src/payments/payment.response-schema.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { submitLandingForm } from '../support/user-consent.js';
import { epaymentProblem } from '../../src/platform/rest/error-formats/epayment-problem.js';
import { invalidParamsProblem } from '../../src/platform/rest/error-formats/invalid-params-problem.js';
import { defineRestInterface } from '../../src/platform/rest/rest-interface.js';
import { Router } from '../../src/platform/rest/router.js';

/** Interfaces as declared: every answer under a prefix in its format, and an OpenAPI document of each. */

let t: TestApp;
let client: MerchantClient;
beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  client = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

describe('OpenAPI documents', () => {
  test.each(['/accesstoken', '/epayment/v1', '/webhooks/v1'])('%s/openapi.json lists every declared route', async (prefix) => {
    const res = await client.raw('GET', `${prefix}/openapi.json`);
    expect(res.status).toBe(200);
    const document = JSON.parse(res.text);
    expect(document.openapi).toMatch(/^3\./);
    const declared = t.app.router.declaredInterfaces.find((i) => i.prefix === prefix)!;
    expect(declared.routes.length).toBeGreaterThan(0);
    for (const route of declared.routes) {
      const operation = document.paths[route.pattern]?.[route.method.toLowerCase()];
      expect({ route: `${route.method} ${route.pattern}`, present: operation !== undefined }).toEqual({
        route: `${route.method} ${route.pattern}`,
        present: true,
      });
      expect(operation.responses[String(route.success.status)]).toBeDefined();
      expect(operation.responses.default.content).toEqual({
        [declared.errorFormat.contentType]: { schema: { $ref: '#/components/schemas/Error' } },
      });
    }
    expect(document.components.schemas.Error).toEqual(declared.errorFormat.jsonSchema);
  });

  test('the ePayment document carries header rules, idempotency keys, bodies and path parameter rules', async () => {
    const document = (await client.raw('GET', '/epayment/v1/openapi.json')).body;
    const capture = document.paths['/epayment/v1/payments/{reference}/capture'].post;
    const parameters = Object.fromEntries(capture.parameters.map((p: any) => [p.name, { in: p.in, required: p.required }]));
    expect(parameters).toEqual(
      expect.objectContaining({
        reference: { in: 'path', required: true },
        'Idempotency-Key': { in: 'header', required: true },
        'Merchant-Serial-Number': { in: 'header', required: true },
        'Svc-System-Name': { in: 'header', required: false },
      }),
    );
    expect(capture.requestBody.content['application/json'].schema.required).toEqual(['modificationAmount']);
    expect(capture.security).toEqual([{ bearer: [], subscriptionKey: [] }]);
    const get = document.paths['/epayment/v1/payments/{reference}'].get;
    expect(get.parameters.map((p: any) => p.name)).not.toContain('Idempotency-Key');
    expect(get.requestBody).toBeUndefined();
  });

  test("the served ePayment document shows Express (issue 34): the create's shipping, the payment's shippingDetails and userDetails, the error codes", async () => {
    const res = await fetch(`${t.baseUrl}/epayment/v1/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as any;
    const shipping = document.paths['/epayment/v1/payments'].post.requestBody.content['application/json'].schema.properties.shipping;
    expect(Object.keys(shipping.properties).sort()).toEqual(['allowedCountries', 'dynamicOptions', 'fixedOptions']);
    expect(Object.keys(shipping.properties.dynamicOptions.properties).sort()).toEqual(['callbackAuthorizationToken', 'callbackUrl']);
    const read = document.paths['/epayment/v1/payments/{reference}'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(read.properties.shippingDetails.properties).sort()).toEqual([
      'address',
      'shippingCost',
      'shippingOptionId',
      'shippingOptionName',
    ]);
    expect(Object.keys(read.properties.shippingDetails.properties.address.properties).sort()).toEqual([
      'addressLine1',
      'addressLine2',
      'city',
      'country',
      'postCode',
    ]);
    expect(Object.keys(read.properties.userDetails.properties).sort()).toEqual([
      'addresses',
      'email',
      'firstName',
      'lastName',
      'mobileNumber',
    ]);
    // What the document shows is what GET answers: an approved Express payment's body, checked against it.
    expect(read).toEqual(JSON.parse(JSON.stringify(PaymentResponse)));
    const reference = newReference();
    const flatRate = { id: 'flat_rate:1', name: 'Flat rate', amount: { currency: 'NOK', value: 4_900 } };
    const created = await client.createPayment({
      reference,
      userFlow: 'WEB_REDIRECT',
      returnUrl: 'https://shop.example/return',
      profile: { scope: 'name email phoneNumber address' },
      shipping: { fixedOptions: [{ brand: 'POSTEN', type: 'HOME_DELIVERY', options: [flatRate] }] },
    });
    const approved = await submitLandingForm(t.baseUrl, created.body.redirectUrl, {
      phoneNumber: '91234567',
      consent: 'yes',
      address: '0',
      shippingOptionId: 'flat_rate:1',
    });
    expect(approved.status).toBe(200);
    const answer = (await client.getPayment(reference)).body;
    expect(Object.keys(answer)).toEqual(expect.arrayContaining(['shippingDetails', 'userDetails']));
    expect([...Compile(PaymentResponse).Errors(answer)]).toEqual([]);
    const codes = document.components.schemas.Error.properties.extraDetails.description;
    for (const code of [
      '4080 Invalid scope',
      '4100',
      '4110',
      '4120',
      '4130',
      '4140',
      '4160',
      '5020 Express not allowed',
      '6010',
      '10020 Approve not allowed',
    ])
      expect(codes).toContain(code);
  });

  test('the document is public, and only GET reads it', async () => {
    expect((await client.raw('POST', '/webhooks/v1/openapi.json')).status).toBe(405);
  });
});

describe('errors outside any route answer in the format of the path’s interface', () => {
  test('a 404 under /webhooks/v1 is the webhooks problem, naming the path', async () => {
    const res = await client.raw('GET', '/webhooks/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toEqual(expect.objectContaining({ status: 404, instance: '/webhooks/v1/nothing-here', extraDetails: [] }));
  });

  test('outside every prefix the body is as before (the ePayment problem)', async () => {
    const res = await client.raw('GET', '/nowhere');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(expect.objectContaining({ title: 'Not Found', status: 404, instance: '/nowhere' }));
  });

  test('the router picks the interface by the longest prefix, and only on a segment boundary', () => {
    const router = new Router();
    const noRoutes = () => [];
    router.add(
      defineRestInterface(t.app.services, { name: 'QR', prefix: '/qr/v1', errorFormat: invalidParamsProblem, auth: 'public' }, noRoutes),
      defineRestInterface(
        t.app.services,
        { name: 'QR redirect', prefix: '/qr/v1/merchant-redirect', errorFormat: epaymentProblem, auth: 'public' },
        noRoutes,
      ),
    );
    expect(router.interfaceFor('/qr/v1/anything')?.name).toBe('QR');
    expect(router.interfaceFor('/qr/v1')?.name).toBe('QR');
    expect(router.interfaceFor('/qr/v1/merchant-redirect/abc')?.name).toBe('QR redirect');
    expect(router.interfaceFor('/qr/v10')).toBeUndefined();
    expect(router.errorFormatFor('/qr/v1/x', epaymentProblem)).toBe(invalidParamsProblem);
    expect(router.errorFormatFor('/other', epaymentProblem)).toBe(epaymentProblem);
  });
});
