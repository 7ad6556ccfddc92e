import { jest } from '@jest/globals';
import { useTestApp } from '../support/app-fixture.js';
import { CheckoutClient } from '../checkout/support/checkout-client.js';
import { MERCHANT_B, paymentBody } from '../support/merchant-client.js';
import { mgmt, png, PRICE_PACKAGE_I_KASSA, PRICE_PACKAGE_PA_NETT, SYSTEM_HEADERS } from './management-support.js';

// Several helpers share the machine's two cores: a request can take seconds.
jest.setTimeout(30_000);
const t = useTestApp({ runJobs: false });

const problemShape = {
  type: expect.any(String),
  title: expect.any(String),
  status: expect.any(Number),
  detail: expect.any(String),
  instance: expect.any(String),
  traceId: expect.any(String),
  extraDetails: expect.any(Array),
};

describe('headers and errors', () => {
  test('each missing Svc-System-* header is a 400 naming it, in the management problem body', async () => {
    for (const missing of Object.keys(SYSTEM_HEADERS)) {
      const headers = Object.fromEntries(Object.entries(SYSTEM_HEADERS).filter(([k]) => k !== missing));
      const res = await t.merchant.request('GET', '/management/v1/merchants', undefined, headers);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ ...problemShape, status: 400 });
      expect(res.body.extraDetails).toContainEqual({ key: missing, value: 'The header is required' });
    }
  });

  test('a system header longer than 30 characters is a 400', async () => {
    const res = await mgmt(t.merchant, 'GET', '/merchants', undefined, { 'Svc-System-Name': 'x'.repeat(31) });
    expect(res.status).toBe(400);
  });

  test('no token is a 401, a PSP is a 403, in the same body', async () => {
    const anonymous = await fetch(`${t.baseUrl}/management/v1/merchants`, { headers: SYSTEM_HEADERS });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ ...problemShape, status: 401 });
    const psp = await t.psp.request('GET', '/management/v1/merchants', undefined, SYSTEM_HEADERS);
    expect(psp.status).toBe(403);
  });

  test('a refusal of the domain carries its CustomErrorCode', async () => {
    const res = await mgmt(t.merchant, 'GET', '/merchants/920000010');
    expect(res.status).toBe(404);
    expect(res.body.extraDetails).toContainEqual({ key: 'CustomErrorCode', value: '1404' });
  });
});

describe('a merchant sees only itself', () => {
  test('merchants list, merchant by orgno, its sales units, all sales units', async () => {
    expect((await mgmt(t.merchant, 'GET', '/merchants')).body).toEqual({
      MerchantList: [{ orgno: '920000002', name: 'Testbutikk AS', status: 'ACTIVE' }],
    });
    expect((await mgmt(t.merchant, 'GET', '/merchants/920000002')).body).toEqual({
      data: { orgno: '920000002', name: 'Testbutikk AS', status: 'ACTIVE' },
    });
    expect((await mgmt(t.merchant, 'GET', '/merchants/920000002/sales-units')).body).toEqual(['123456']);
    expect((await mgmt(t.merchant, 'GET', '/sales-units')).body).toEqual(['123456']);
    expect((await mgmt(t.otherMerchant, 'GET', '/sales-units')).body).toEqual(['654321']);
    expect((await mgmt(t.merchant, 'GET', '/merchants/920000010/sales-units')).status).toBe(404);
  });

  test('sales unit details of its own unit; another merchant’s is 404', async () => {
    const res = await mgmt(t.merchant, 'GET', '/sales-units/123456');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      msn: '123456',
      name: 'Test Shop Online',
      businessIdentifier: { scheme: 'business:NO:ORG', id: '920000002' },
      configuration: { paymentAllowed: true, captureType: 'ReserveCapture', skipLandingPageAllowed: false, recurringAllowed: true },
    });
    expect((await mgmt(t.otherMerchant, 'GET', '/sales-units/654321')).body.configuration.captureType).toBe('DirectCapture');
    expect((await mgmt(t.merchant, 'GET', '/sales-units/654321')).status).toBe(404);
    expect((await mgmt(t.merchant, 'GET', '/sales-units/12')).status).toBe(400);
  });

  test('contracts: a link a browser opens, no headers needed: short-lived, signed, bound to the caller and the merchant', async () => {
    const res = await mgmt(t.merchant, 'GET', '/merchants/920000002/contracts');
    expect(res.status).toBe(200);
    expect(res.body.urls).toHaveLength(1);
    const link = new URL(res.body.urls[0]);
    expect(link.pathname).toBe('/merchant-portal/contracts/agreement.pdf');
    // As a browser opens it: no token, no key, no system headers.
    const pdf = await fetch(link);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('cache-control')).toBe('no-store');
    expect(pdf.headers.get('referrer-policy')).toBe('no-referrer');
    const text = Buffer.from(await pdf.arrayBuffer()).toString('latin1');
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    expect(text).toContain('Testbutikk AS \\(920000002\\)');
    // A changed token (another merchant's number written into it) is no link.
    const token = link.searchParams.get('token')!;
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, org: '920000010' })).toString('base64url')}.${signature}`;
    expect((await fetch(`${link.origin}${link.pathname}?token=${encodeURIComponent(forged)}`)).status).toBe(404);
    expect((await fetch(`${link.origin}${link.pathname}`)).status).toBe(404);
    // Short-lived: five minutes.
    t.app.clock.advance(301_000);
    expect((await fetch(link)).status).toBe(404);
    // The authenticated PDF route still answers a client that sends its headers.
    const direct = await t.merchant.request('GET', '/management/v1/merchants/920000002/contracts/agreement.pdf', undefined, SYSTEM_HEADERS);
    expect(direct.status).toBe(200);
  });

  // issue 19: management 1.1.x names a merchant by `{scheme}/{id}` beside `{orgno}`, on the same services.
  test('1.1.x business identifier paths: merchant, contracts and sales units; the {orgno} paths keep their 1.0.0 answers', async () => {
    const merchant = await mgmt(t.merchant, 'GET', '/merchants/business:NO:ORG/920000002');
    expect(merchant.status).toBe(200);
    expect(merchant.body).toEqual({
      businessIdentifier: { scheme: 'business:NO:ORG', id: '920000002' },
      name: 'Testbutikk AS',
      status: 'ACTIVE',
      createdAt: expect.any(String),
      countryCode: 'NO',
    });
    // The colons percent-encoded, as some clients send them.
    expect((await mgmt(t.merchant, 'GET', '/merchants/business%3ANO%3AORG/920000002')).body).toEqual(merchant.body);
    const units = await mgmt(t.merchant, 'GET', '/merchants/business:NO:ORG/920000002/sales-units');
    expect(units.status).toBe(200);
    expect(units.body).toEqual([{ msn: '123456', name: expect.any(String) }]);
    const contracts = await mgmt(t.merchant, 'GET', '/merchants/business:NO:ORG/920000002/contracts');
    expect(contracts.status).toBe(200);
    expect((await fetch(contracts.body.urls[0])).status).toBe(200);
    // The 1.0.0 paths are not read as a scheme and an id.
    expect((await mgmt(t.merchant, 'GET', '/merchants/920000002/sales-units')).body).toEqual(['123456']);
    expect((await mgmt(t.merchant, 'GET', '/merchants/920000002/contracts')).body.urls).toHaveLength(1);
    expect((await mgmt(t.merchant, 'GET', '/merchants/920000002')).body).toEqual({
      data: { orgno: '920000002', name: 'Testbutikk AS', status: 'ACTIVE' },
    });
    // Another scheme names no merchant here; a malformed identifier is a 400 naming it.
    const danish = await mgmt(t.merchant, 'GET', '/merchants/business:DK:CVR/12345678');
    expect(danish.status).toBe(404);
    expect(danish.body).toMatchObject(problemShape);
    expect((await mgmt(t.merchant, 'GET', '/merchants/business:NO:ORG/92000')).status).toBe(400);
    expect((await mgmt(t.merchant, 'GET', '/merchants/orgnr:NO/920000002')).status).toBe(400);
    // Another merchant's organisation number is as missing as one that does not exist.
    expect((await mgmt(t.merchant, 'GET', '/merchants/business:NO:ORG/920000010')).status).toBe(404);
    // A partner without the merchant's consent: its units, not its data.
    const partnerForB = t.partner.forSalesUnit('654321');
    expect((await mgmt(partnerForB, 'GET', '/merchants/business:NO:ORG/920000010')).status).toBe(403);
    expect((await mgmt(partnerForB, 'GET', '/merchants/business:NO:ORG/920000010/contracts')).status).toBe(403);
    expect((await mgmt(partnerForB, 'GET', '/merchants/business:NO:ORG/920000010/sales-units')).body).toEqual([
      { msn: '654321', name: expect.any(String) },
    ]);
  });

  test('partner operations are the partner’s: a merchant gets 403', async () => {
    for (const path of ['/partners/whoami', '/partners/price-packages']) {
      const res = await mgmt(t.merchant, 'GET', path);
      expect(res.status).toBe(403);
      expect(res.body.extraDetails).toContainEqual({ key: 'CustomErrorCode', value: '9403' });
    }
  });
});

describe('a partner sees connected units, and merchant data only with consent', () => {
  test('whoami and price packages', async () => {
    expect((await mgmt(t.partner, 'GET', '/partners/whoami')).body).toEqual({
      partnerId: '100200',
      name: 'Testpartner AS',
      level: 'Vipps Partner',
      partnerContactName: 'Test Partner',
      partnerContactEmail: 'partner@example.com',
      status: 'ACTIVE',
    });
    const packages = (await mgmt(t.partner, 'GET', '/partners/price-packages')).body;
    expect(packages.map((p: { pricePackageId: string; productType: string }) => [p.pricePackageId, p.productType]).sort()).toEqual(
      [
        [PRICE_PACKAGE_PA_NETT, 'ePayment'],
        [PRICE_PACKAGE_I_KASSA, 'ePaymentCustomerPresent'],
      ].sort(),
    );
  });

  test('merchants and units of the connected units only; a merchant’s own data only with its consent', async () => {
    expect((await mgmt(t.partner, 'GET', '/merchants')).body.MerchantList.map((m: { orgno: string }) => m.orgno)).toEqual(['920000002']);
    expect((await mgmt(t.partner, 'GET', '/sales-units')).body).toEqual(['123456', '654321']);
    const a = t.partner.forSalesUnit('123456');
    expect((await mgmt(a, 'GET', '/merchants/920000002/sales-units')).body).toEqual(['123456']);
    expect((await mgmt(a, 'GET', '/sales-units/123456')).status).toBe(200);
  });

  test('merchant data: 200 with consent, 403 without (the connection is known), 404 when not connected', async () => {
    expect((await mgmt(t.partner.forSalesUnit('123456'), 'GET', '/merchants/920000002')).status).toBe(200);
    const refused = await mgmt(t.partner.forSalesUnit('654321'), 'GET', '/merchants/920000010');
    expect(refused.status).toBe(403);
    expect(refused.body.extraDetails).toContainEqual({ key: 'CustomErrorCode', value: '1403' });
    expect((await mgmt(t.partner.forSalesUnit('654321'), 'GET', '/merchants/920000010/contracts')).status).toBe(403);
    // The unit of a merchant that did not consent is still the partner's to read.
    expect((await mgmt(t.partner.forSalesUnit('654321'), 'GET', '/sales-units/654321')).status).toBe(200);
    expect((await mgmt(t.partner.forSalesUnit('123456'), 'GET', '/merchants/920000088')).status).toBe(404);
    expect((await mgmt(t.partner.forSalesUnit('123456'), 'GET', '/sales-units/112233')).status).toBe(404);
  });

  test('a partner acting for a merchant names the MSN: missing is 400, an unconnected one 403', async () => {
    const missing = await mgmt(t.partner, 'GET', '/sales-units/123456');
    expect(missing.status).toBe(400);
    expect(missing.body.extraDetails).toContainEqual(expect.objectContaining({ key: 'Merchant-Serial-Number' }));
    expect((await mgmt(t.partner.forSalesUnit('112233'), 'GET', '/sales-units/112233')).status).toBe(403);
  });
});

describe('sales unit update', () => {
  test('name and logo; a bad logo or a long name is a 400 naming the field', async () => {
    const ok = await mgmt(t.otherMerchant, 'PATCH', '/sales-units/654321', { name: 'Prøvekafé', salesUnitLogo: await png(200, 200) });
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('');
    expect((await mgmt(t.otherMerchant, 'GET', '/sales-units/654321')).body.name).toBe('Prøvekafé');
    for (const [body, field] of [
      [{ salesUnitLogo: await png(50, 50) }, 'salesUnitLogo'],
      [{ salesUnitLogo: await png(1200, 200) }, 'salesUnitLogo'],
      [{ salesUnitLogo: 'aGVsbG8=' }, 'salesUnitLogo'],
      [{ name: 'x'.repeat(51) }, 'name'],
      [{ status: 'PAUSED' }, 'status'],
    ] as const) {
      const res = await mgmt(t.otherMerchant, 'PATCH', '/sales-units/654321', body);
      expect(res.status).toBe(400);
      expect(res.body.extraDetails.map((d: { key: string }) => d.key)).toContain(field);
    }
    expect((await mgmt(t.merchant, 'PATCH', '/sales-units/654321', { name: 'Mine now' })).status).toBe(404);
  });

  test('a deactivated unit refuses new payments on REST and in the graph until it is active again', async () => {
    const partnerForB = t.partner.forSalesUnit('654321');
    expect((await mgmt(partnerForB, 'PATCH', '/sales-units/654321', { status: 'DEACTIVATED' })).status).toBe(200);
    expect((await mgmt(t.otherMerchant, 'GET', '/sales-units/654321')).body.configuration.paymentAllowed).toBe(false);

    const refused = await t.otherMerchant.createPayment();
    expect(refused.status).toBe(403);
    expect(refused.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '5070' });
    const graph = await t.otherMerchant.graphql(
      `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { payment { reference } userErrors { code errorCode field message } } }`,
      {
        input: {
          idempotencyKey: 'deactivated-graph-1',
          reference: 'deactivated-graph-1',
          amount: { value: 1000, currency: 'NOK' },
          paymentMethod: 'WALLET',
          userFlow: 'WEB_REDIRECT',
          returnUrl: 'https://merchant.example/return',
          paymentDescription: 'Deactivated unit',
        },
      },
    );
    expect(graph.body.data.createPayment).toEqual({
      payment: null,
      userErrors: [expect.objectContaining({ code: 'SALES_UNIT_DEACTIVATED', errorCode: '5070' })],
    });
    // Checkout opens no session for it either (its problem body, with the checkout code of the same refusal).
    const checkout = await new CheckoutClient(t.baseUrl, MERCHANT_B).createSession();
    expect(checkout.status).toBe(403);
    expect(checkout.body).toEqual(expect.objectContaining({ errorCode: 'Session-00403' }));

    expect((await mgmt(t.otherMerchant, 'PATCH', '/sales-units/654321', { status: 'ACTIVE' })).status).toBe(200);
    expect((await t.otherMerchant.createPayment(paymentBody())).status).toBe(201);
  });
});
