import { pngImage } from '../support/images.js';
import { MerchantClient } from '../support/merchant-client.js';
import { PspClient } from '../support/psp-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { createSecondPsp, newIds } from './psp-fixture.js';

let t: TestApp;
let psp: PspClient;
const BASE = '/merchant-management/psp/v1/merchants';

beforeAll(async () => {
  t = await startTestApp();
  psp = new PspClient(t.baseUrl);
});
afterAll(() => t.close());

const png = (width: number, height: number): string => pngImage(width, height).toString('base64');

const LOGO = png(200, 200);
let keyCount = 0;
const key = () => `signup-${Date.now()}-${++keyCount}`;

function merchantBody(overrides: Record<string, unknown> = {}) {
  return {
    organizationNumber: '920000029',
    name: 'Nytt Firma Nettbutikk',
    mccCode: '5411',
    logo: LOGO,
    email: 'post@nyttfirma.no',
    website: 'https://nyttfirma.no',
    address: { addressLine1: 'Storgata 1', city: 'Oslo', postCode: '0155', country: 'NO' },
    companyName: 'Nytt Firma AS',
    companyEmail: 'admin@nyttfirma.no',
    ...overrides,
  };
}

const create = (body: unknown, idempotencyKey = key(), client = psp) =>
  client.request('POST', BASE, body, { 'Idempotency-Key': idempotencyKey });

test('create answers 200 with the new MSN; the merchant is ACTIVE at once in test and listed', async () => {
  const res = await create(merchantBody());
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ merchantSerialNumber: expect.stringMatching(/^\d{6}$/) });
  const msn = res.body.merchantSerialNumber;
  const got = await psp.request('GET', `${BASE}/${msn}`);
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({
    merchantSerialNumber: msn,
    organizationNumber: '920000029',
    status: 'ACTIVE',
    mccCode: '5411',
    address: { addressLine1: 'Storgata 1', city: 'Oslo', postCode: '0155', country: 'NO' },
    createdAt: expect.any(String),
  });
  const list = await psp.request('GET', BASE);
  expect(list.body.merchants.map((m: any) => m.merchantSerialNumber)).toContain(msn);
});

test('Idempotency-Key: required; the same key and body return the same MSN; another body is 409', async () => {
  const missing = await psp.request('POST', BASE, merchantBody());
  expect(missing.status).toBe(400);
  expect(missing.body).toMatchObject({
    title: expect.any(String),
    status: 400,
    detail: expect.stringMatching(/Idempotency-Key/),
    instance: BASE,
  });
  const k = key();
  const first = await create(merchantBody(), k);
  const again = await create(merchantBody(), k);
  expect(again.body).toEqual(first.body);
  const conflict = await create(merchantBody({ name: 'Another name' }), k);
  expect(conflict.status).toBe(409);
});

test.each([
  ['a sub entity', '920000045', /sub entity/],
  ['a deleted entity', '920000053', /deleted|not active/i],
  ['an unknown number', '920000061', /not in the business registry/],
  ['a bad check digit', '920000011', /not a valid Norwegian organisation number/],
])('refuses %s with its own message', async (_, organizationNumber, message) => {
  const res = await create(merchantBody({ organizationNumber }));
  expect(res.status).toBe(400);
  expect(res.body.detail).toMatch(message);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
});

test.each([
  ['an MCC of 3 digits', { mccCode: '541' }, 'mccCode'],
  ['a logo that is not base64', { logo: 'not base64!' }, 'logo'],
  ['a JPEG-looking logo', { logo: Buffer.from([0xff, 0xd8, 0xff, 0, 1, 2]).toString('base64') }, 'logo'],
  ['a logo smaller than 100 x 100', { logo: png(99, 120) }, 'logo'],
  ['a logo over 1000 px on its longest side', { logo: png(1001, 200) }, 'logo'],
  ['a bad email', { email: 'no-at-sign' }, 'email'],
  ['a website that is not a URI', { website: 'not a uri' }, 'website'],
  ['an address without city', { address: { addressLine1: 'x', postCode: '0155', country: 'NO' } }, 'address.city'],
  [
    'a Danish number of the wrong length',
    { organizationNumber: '123', address: { addressLine1: 'x', city: 'København', postCode: '1000', country: 'DK' } },
    'organizationNumber',
  ],
])('refuses %s (400, the field named)', async (_, overrides, field) => {
  const res = await create(merchantBody(overrides));
  expect(res.status).toBe(400);
  expect(res.body.detail).toContain(field);
});

test('a signed-up merchant’s sales unit takes PSP payments at once, and stops when the merchant is deactivated (final)', async () => {
  const msn = (await create(merchantBody({ organizationNumber: '920000037', companyName: 'Ny Kafé AS' }))).body.merchantSerialNumber;
  const initiate = () =>
    psp.request(
      'POST',
      '/psp/v3/psppayments/init',
      { ...newIds(), amount: 1000, currency: 'NOK', pspRedirectUrl: 'https://psp.example/r', makePaymentUrl: 'http://127.0.0.1:9/cb' },
      { 'Merchant-Serial-Number': msn },
    );
  expect((await initiate()).status).toBe(200);
  expect((await psp.request('PATCH', `${BASE}/${msn}`, {})).status).toBe(400);
  const renamed = await psp.request('PATCH', `${BASE}/${msn}`, { name: 'Ny Kafé Sentrum' });
  expect(renamed.status).toBe(200);
  expect(renamed.text).toBe('');
  expect((await psp.request('GET', `${BASE}/${msn}`)).body.name).toBe('Ny Kafé Sentrum');
  expect((await psp.request('PATCH', `${BASE}/${msn}`, { deactivate: true })).status).toBe(200);
  expect((await psp.request('GET', `${BASE}/${msn}`)).body.status).toBe('DEACTIVATED');
  const refused = await initiate();
  expect(refused.status).toBe(400);
  expect(refused.body[0].errorCode).toBe('21');
  const later = await psp.request('PATCH', `${BASE}/${msn}`, { deactivate: false });
  expect(later.status).toBe(400);
  expect(later.body.detail).toMatch(/deactivated/);
});

test('path, tenancy and principal: a bad MSN is 400, another PSP’s merchant 404, a merchant’s token 403', async () => {
  expect((await psp.request('GET', `${BASE}/12ab`)).status).toBe(400);
  const msn = (await create(merchantBody())).body.merchantSerialNumber;
  const second = await createSecondPsp(t);
  const foreign = await second.request('GET', `${BASE}/${msn}`);
  const missing = await second.request('GET', `${BASE}/999990`);
  expect(foreign.status).toBe(404);
  expect({ ...foreign.body, detail: foreign.body.detail.replace(msn, '<msn>'), instance: '' }).toEqual({
    ...missing.body,
    detail: missing.body.detail.replace('999990', '<msn>'),
    instance: '',
  });
  expect((await second.request('PATCH', `${BASE}/${msn}`, { name: 'x' })).status).toBe(404);
  expect((await second.request('GET', BASE)).body.merchants.map((m: any) => m.merchantSerialNumber)).not.toContain(msn);
  const merchant = new MerchantClient(t.baseUrl);
  expect((await merchant.request('GET', BASE)).status).toBe(403);
});

describe('the graph', () => {
  const headers = { 'Merchant-Serial-Number': '112233' };
  const signUp = `mutation($input: SignUpPspMerchantInput!) { signUpPspMerchant(input: $input) {
    merchant { merchantSerialNumber status organizationNumber salesUnits { merchantSerialNumber takesPspPayments } }
    userErrors { code field message } } }`;
  const graphInput = (overrides: Record<string, unknown> = {}) => ({ idempotencyKey: key(), ...merchantBody(), ...overrides });

  test('signUpPspMerchant, pspMerchants and updatePspMerchant follow the REST rules', async () => {
    const res = await psp.graphql(signUp, { input: graphInput() }, headers);
    const created = res.body.data.signUpPspMerchant;
    expect(created.userErrors).toEqual([]);
    const msn = created.merchant.merchantSerialNumber;
    expect(created.merchant).toEqual({
      merchantSerialNumber: msn,
      status: 'ACTIVE',
      organizationNumber: '920000029',
      salesUnits: [{ merchantSerialNumber: msn, takesPspPayments: true }],
    });
    const rest = await psp.request('GET', `${BASE}/${msn}`);
    expect(rest.body.status).toBe('ACTIVE');
    const list = await psp.graphql('{ pspMerchants { merchantSerialNumber } }', {}, headers);
    expect(list.body.data.pspMerchants.map((m: any) => m.merchantSerialNumber)).toContain(msn);
    const update = `mutation($input: UpdatePspMerchantInput!) { updatePspMerchant(input: $input) { merchant { status salesUnits { takesPspPayments } } userErrors { code field } } }`;
    const deactivated = await psp.graphql(update, { input: { merchantSerialNumber: msn, deactivate: true } }, headers);
    expect(deactivated.body.data.updatePspMerchant).toEqual({
      merchant: { status: 'DEACTIVATED', salesUnits: [{ takesPspPayments: false }] },
      userErrors: [],
    });
    const again = await psp.graphql(update, { input: { merchantSerialNumber: msn, name: 'x' } }, headers);
    expect(again.body.data.updatePspMerchant.userErrors[0].code).toBe('PSP_SIGNUP_MERCHANT_DEACTIVATED');
  });

  test('refusals are typed userErrors', async () => {
    const sub = await psp.graphql(signUp, { input: graphInput({ organizationNumber: '920000045' }) }, headers);
    expect(sub.body.data.signUpPspMerchant.userErrors).toEqual([
      { code: 'ORG_NUMBER_SUB_ENTITY', field: 'organizationNumber', message: expect.any(String) },
    ]);
    const logo = await psp.graphql(signUp, { input: graphInput({ logo: png(50, 50) }) }, headers);
    expect(logo.body.data.signUpPspMerchant.userErrors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'logo' });
    const k = key();
    await psp.graphql(signUp, { input: graphInput({ idempotencyKey: k }) }, headers);
    const conflict = await psp.graphql(signUp, { input: graphInput({ idempotencyKey: k, name: 'Other' }) }, headers);
    expect(conflict.body.data.signUpPspMerchant.userErrors[0].code).toBe('IDEMPOTENCY_CONFLICT');
  });
});

// issue 19 point 8: a PSP's list is all its merchants, the test environment's own PSP-kunde AS (112233) included.
test("the PSP's list and GET …/merchants/{msn} include its seeded merchant 112233; another PSP sees it as missing", async () => {
  const list = await psp.request('GET', BASE);
  expect(list.status).toBe(200);
  expect(list.body.merchants).toContainEqual(
    expect.objectContaining({
      merchantSerialNumber: '112233',
      organizationNumber: '920000088',
      companyName: 'PSP-kunde AS',
      status: 'ACTIVE',
    }),
  );
  const one = await psp.request('GET', `${BASE}/112233`);
  expect(one.status).toBe(200);
  expect(one.body).toMatchObject({ merchantSerialNumber: '112233', name: 'PSP-kunde Online' });
  const graph = await psp.graphql('{ pspMerchants { merchantSerialNumber } }', {}, { 'Merchant-Serial-Number': '112233' });
  expect(graph.body.data.pspMerchants.map((m: any) => m.merchantSerialNumber)).toContain('112233');
  const second = await createSecondPsp(t);
  expect((await second.request('GET', `${BASE}/112233`)).status).toBe(404);
});
