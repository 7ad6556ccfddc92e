import { MerchantClient, newReference, paymentBody } from '../support/merchant-client.js';
import { PartnerClient } from '../support/partner-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { orderBody } from '../management/management-support.js';
import { newIds, testPspClient } from '../psp/psp-fixture.js';
import { eventually, PspEndpoint } from '../psp/psp-endpoint.js';

/**
 * Issue 19 point 3: JSON types as real clients send them, one rule of the request-shape layer for every body. Bodies
 * are written out as text here, as PHP's json_encode and the Postman collections write them.
 */
let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

/** A create body with `fields` spliced in as raw JSON text (numbers JSON.stringify could not write as they are). */
function createText(fields: Record<string, string>, overrides: Record<string, unknown> = {}): string {
  const without = Object.fromEntries(Object.keys(fields).map((name) => [name, undefined]));
  const body = JSON.stringify(paymentBody({ returnUrl: 'https://example.com/return', ...overrides, ...without }));
  return Object.entries(fields).reduce((text, [name, raw]) => text.replace(/^\{/, `{"${name}":${raw},`), body);
}

function createPaymentText(text: string) {
  return merchant.request('POST', '/epayment/v1/payments', text, { 'Idempotency-Key': newReference('key') });
}

test('a 19-digit number where the reference is a string is the reference exactly as written', async () => {
  const { reference: _r, ...rest } = paymentBody({ returnUrl: 'https://example.com/return' });
  const digits = `${Date.now()}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
  expect(digits).toHaveLength(19);
  expect(String(Number(digits))).not.toBe(digits);
  const created = await createPaymentText(`{"reference":${digits},${JSON.stringify(rest).slice(1)}`);
  expect(created.status).toBe(201);
  expect((await merchant.getPayment(digits)).body.reference).toBe(digits);
});

test('a number in metadata (PHP encodes an order id as one) and in customer.phoneNumber is its text', async () => {
  const reference = newReference();
  const text = createText({}, { reference, userFlow: 'PUSH_MESSAGE', returnUrl: undefined }).replace(
    /^\{/,
    '{"metadata":{"orderid":1234,"total":10.50},"customer":{"phoneNumber":4791234567},',
  );
  const created = await createPaymentText(text);
  expect(created.status).toBe(201);
  const read = await merchant.getPayment(reference);
  expect(read.body.metadata).toEqual({ orderid: '1234', total: '10.50' });
});

test('digits in a string where an integer is declared are the integer; an integral float stays accepted', async () => {
  const reference = newReference();
  const text = createText({ amount: '{"currency":"NOK","value":"200"}' }, { reference });
  expect((await createPaymentText(text)).status).toBe(201);
  expect((await merchant.getPayment(reference)).body.amount).toEqual({ currency: 'NOK', value: 200 });
  const float = newReference();
  expect((await createPaymentText(createText({ amount: '{"currency":"NOK","value":49900.0}' }, { reference: float }))).status).toBe(201);
  expect((await merchant.getPayment(float)).body.amount.value).toBe(49900);
});

test('an amount that is not whole minor units, or not digits, is still refused naming the field', async () => {
  for (const value of ['1998.9999999999998', '"12.5"', '"200 "', '"0x10"', '"1e3"']) {
    const res = await createPaymentText(createText({ amount: `{"currency":"NOK","value":${value}}` }));
    expect(res.status).toBe(400);
    expect(res.body.extraDetails).toEqual([{ name: 'amount.value', reason: 'Must be an integer' }]);
  }
});

test('the same rule on another interface: the partner API takes "annualTurnover": "100000" as the integer', async () => {
  const partner = new PartnerClient(t.baseUrl);
  const { businessIdentifier: _b, annualTurnover: _a, productUseCase: _u, ...rest } = orderBody();
  const text = `{"annualTurnover":"100000",${JSON.stringify({ orgno: '920000029', ...rest }).slice(1)}`;
  const res = await partner.request('POST', '/partner-api/v1/products/orders', text);
  expect(res.status).toBe(200);
  const refused = await partner.request('POST', '/partner-api/v1/products/orders', text.replace('"100000"', '"100000.5"'));
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('annualTurnover');
});

test('the PSP interface too: "amount": "200" as the PSP collection sends it is the integer', async () => {
  const endpoint = await new PspEndpoint().start();
  try {
    const psp = testPspClient(t);
    const ids = newIds();
    const body = {
      ...ids,
      currency: 'NOK',
      pspRedirectUrl: 'https://psp.example/return',
      makePaymentUrl: endpoint.url('/make-payment'),
      makePaymentToken: 'psp-secret',
    };
    const text = `{"amount":"200",${JSON.stringify(body).slice(1)}`;
    const init = await psp.request('POST', '/psp/v3/psppayments/init', text, psp.msnHeaders);
    expect(init.status).toBe(200);
    const token = new URL(init.body.vippsRedirectUrl).searchParams.get('token')!;
    const approve = `/psp/v3/integration-test/psppayments/${ids.pspTransactionId}/approve`;
    expect((await psp.request('POST', approve, { customerPhoneNumber: '91234567', token }, psp.msnHeaders)).status).toBeLessThan(300);
    // Once the PSP's endpoint answers the make-payment callback, the amount is reserved: the integer sent as text.
    const summary = async () =>
      (await psp.request('GET', `/psp/v3/psppayments/${ids.pspTransactionId}/details`, undefined, psp.msnHeaders)).body.transactionSummary;
    await eventually(async () => (await summary()).remainingAmountToCapture !== 0, 'the reservation');
    expect((await summary()).remainingAmountToCapture).toBe(200);
  } finally {
    await endpoint.close();
  }
});
