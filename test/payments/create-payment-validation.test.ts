import { randomUUID } from 'node:crypto';
import { MERCHANT_A, MerchantClient, newReference, paymentBody, type HttpResult } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Every body and header rule of `POST /epayment/v1/payments` (FACTS §1.1, §1.2), driven over HTTP: each refusal
 * is a 400 problem+json whose `extraDetails` names the field at fault, and each boundary just inside is a 201.
 */

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const PAYMENTS = '/epayment/v1/payments';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

type Overrides = Record<string, unknown>;
/** Overrides of the default valid body; a function when they depend on the test app's clock. */
type BodyCase = Overrides | (() => Overrides);

/** An RFC 3339 instant `ms` after the service's (manual) clock. */
function ahead(ms: number): string {
  return new Date(t.clock.now().getTime() + ms).toISOString();
}

const orderLine = {
  name: 'Socks',
  id: 'line-1',
  totalAmount: 10_000,
  totalAmountExcludingTax: 8_000,
  totalTaxAmount: 2_000,
  taxPercentage: 25,
};
const RECEIPT = { orderLines: [orderLine], bottomLine: { currency: 'NOK' } };
const AIRLINE = {
  agencyInvoiceNumber: '123456',
  airlineCode: '074',
  airlineDesignatorCode: 'KL',
  passengerName: 'Ada Nordmann',
  ticketNumber: '0741234567890',
};

const withoutReturnUrl = { returnUrl: undefined };
const push = { userFlow: 'PUSH_MESSAGE', customer: { phoneNumber: '4791234567' }, ...withoutReturnUrl };
const qr = { userFlow: 'QR', ...withoutReturnUrl };
const card = { paymentMethod: { type: 'CARD' } };
const receiptWith = (bottomLine: Overrides, orderLines: unknown = [orderLine]) => ({
  receipt: { orderLines, bottomLine: { currency: 'NOK', ...bottomLine } },
});
const airline = (fields: Overrides) => ({ industryData: { airlineData: { ...AIRLINE, ...fields } } });
const longLiving = (expiresAt: string, extra: Overrides = {}) => ({ ...qr, receipt: RECEIPT, expiresAt, ...extra });
const metadataPairs = (count: number, value = 'v') => Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${i}`, value]));

function bodyOf(overrides: BodyCase): Overrides {
  return paymentBody(typeof overrides === 'function' ? overrides() : overrides);
}

function create(overrides: BodyCase, headers: Record<string, string> = {}): Promise<HttpResult> {
  return merchant.request('POST', PAYMENTS, bodyOf(overrides), { 'Idempotency-Key': randomUUID(), ...headers });
}

/** The four-digit code each graph code stands for on REST (FACTS §14.3); the rest carry none. */
const GRAPH_ERROR_CODES: Record<string, string> = {
  AMOUNT_TOO_SMALL: '6010',
  METADATA_CAPACITY_EXCEEDED: '4100',
  METADATA_DUPLICATE_KEYS: '4110',
  METADATA_KEY_LENGTH_EXCEEDED: '4120',
  METADATA_VALUE_LENGTH_EXCEEDED: '4130',
  CARD_NOT_AVAILABLE_IN_TEST: '4160',
};

function fieldsNamed(res: HttpResult): string[] {
  return ((res.body?.extraDetails ?? []) as { name: string }[]).map((d) => d.name);
}

/** A 400 problem+json naming `field` in `extraDetails`. */
function expectRefused(res: HttpResult, field: string): void {
  expect({ status: res.status, contentType: res.headers.get('content-type') }).toEqual({
    status: 400,
    contentType: expect.stringContaining('application/problem+json'),
  });
  expect(res.body).toEqual(
    expect.objectContaining({ type: 'https://httpstatuses.io/400', status: 400, title: expect.any(String), traceId: expect.any(String) }),
  );
  expect(fieldsNamed(res)).toContain(field);
}

function expectCreated(res: HttpResult): void {
  expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.objectContaining({ reference: expect.any(String) }) });
}

describe('body rules: each refusal names its field', () => {
  const rules: [rule: string, overrides: BodyCase, field: string][] = [
    // reference: ^[a-zA-Z0-9-]{8,50}$
    ['reference missing', { reference: undefined }, 'reference'],
    ['reference shorter than 8', { reference: 'abc-123' }, 'reference'],
    ['reference longer than 50', { reference: 'a'.repeat(51) }, 'reference'],
    ['reference with an underscore', { reference: 'order_12345' }, 'reference'],
    ['reference with a space', { reference: 'order 12345' }, 'reference'],
    ['reference with non-ASCII letters', { reference: 'ordre-blåbær-1' }, 'reference'],
    // A number is its text (issue 19: real clients send one); 1234 as text is too short a reference.
    ['reference a number too short as text', { reference: 1234 }, 'reference'],
    ['reference not a string', { reference: true }, 'reference'],

    // amount: {currency NOK|DKK|EUR, value int 0..65,000,000}
    ['amount missing', { amount: undefined }, 'amount'],
    ['amount not an object', { amount: 10_000 }, 'amount'],
    ['amount.value missing', { amount: { currency: 'NOK' } }, 'amount.value'],
    ['amount.value not an integer', { amount: { currency: 'NOK', value: 100.5 } }, 'amount.value'],
    // Digits in a string are the integer (issue 19); a decimal in a string is not a whole amount.
    ['amount.value a decimal string', { amount: { currency: 'NOK', value: '100.5' } }, 'amount.value'],
    ['amount.value negative', { amount: { currency: 'NOK', value: -100 } }, 'amount.value'],
    // A payment of nothing could never be captured, in any currency.
    ['amount.value 0 in NOK', { amount: { currency: 'NOK', value: 0 } }, 'amount.value'],
    ['amount.value 0 in DKK', { amount: { currency: 'DKK', value: 0 } }, 'amount.value'],
    ['amount.value 0 in EUR', { amount: { currency: 'EUR', value: 0 } }, 'amount.value'],
    ['amount.value above 65,000,000', { amount: { currency: 'NOK', value: 65_000_001 } }, 'amount.value'],
    ['amount.currency unknown', { amount: { currency: 'SEK', value: 10_000 } }, 'amount.currency'],
    ['amount.currency lowercase', { amount: { currency: 'nok', value: 10_000 } }, 'amount.currency'],
    ['amount.currency missing', { amount: { value: 10_000 } }, 'amount.currency'],

    // customer: exactly one of phoneNumber, personalQr, customerToken
    ['customer with two identifiers', { customer: { phoneNumber: '4791234567', personalQr: 'https://qr.example/abc' } }, 'customer'],
    ['customer not an object', { customer: '4791234567' }, 'customer'],
    ['customer.phoneNumber with a plus sign', { customer: { phoneNumber: '+4791234567' } }, 'customer.phoneNumber'],
    ['customer.phoneNumber too short', { customer: { phoneNumber: '479123' } }, 'customer.phoneNumber'],
    ['customer.phoneNumber with letters', { customer: { phoneNumber: '47912345ab' } }, 'customer.phoneNumber'],
    ['customer.personalQr shorter than 5', { customer: { personalQr: 'abcd' } }, 'customer.personalQr'],

    ['customerInteraction not in the enum', { customerInteraction: 'SOMETIMES' }, 'customerInteraction'],

    // paymentMethod
    ['paymentMethod missing', { paymentMethod: undefined }, 'paymentMethod'],
    ['paymentMethod a bare string', { paymentMethod: 'WALLET' }, 'paymentMethod'],
    ['paymentMethod.type missing', { paymentMethod: {} }, 'paymentMethod.type'],
    ['paymentMethod.type unknown', { paymentMethod: { type: 'CRYPTO' } }, 'paymentMethod.type'],
    ['CARD with a non-WEB_REDIRECT flow', { ...card, ...qr }, 'userFlow'],

    // userFlow and what each flow needs
    ['userFlow missing', { userFlow: undefined }, 'userFlow'],
    ['userFlow unknown', { userFlow: 'EMAIL' }, 'userFlow'],
    ['userFlow lowercase', { userFlow: 'web_redirect' }, 'userFlow'],
    ['WEB_REDIRECT without returnUrl', { userFlow: 'WEB_REDIRECT', ...withoutReturnUrl }, 'returnUrl'],
    ['PUSH_MESSAGE without customer', { ...push, customer: undefined }, 'customer.phoneNumber'],
    // The spec: PUSH_MESSAGE "Requires a valid customer.phoneNumber"; a personal QR names no phone to push to.
    [
      'PUSH_MESSAGE with a personalQr customer',
      { ...push, customer: { personalQr: 'https://qr.example/personal/abc' } },
      'customer.phoneNumber',
    ],
    // issue 9: a customerToken (from a QR check-in) names the user to push to (test/qr/qr.test.ts); no longer refused.
    ['PUSH_MESSAGE with an invalid phoneNumber', { ...push, customer: { phoneNumber: '12' } }, 'customer.phoneNumber'],

    // returnUrl / receiptUrl: https:// or a custom scheme
    ['returnUrl with http://', { returnUrl: 'http://merchant.example/return' }, 'returnUrl'],
    ['returnUrl with javascript:', { returnUrl: 'javascript:alert(1)' }, 'returnUrl'],
    ['returnUrl not a URL', { returnUrl: 'merchant.example/return' }, 'returnUrl'],
    ['returnUrl longer than 2048', { returnUrl: `https://merchant.example/${'a'.repeat(2048)}` }, 'returnUrl'],
    ['receiptUrl with http://', { receiptUrl: 'http://merchant.example/receipt' }, 'receiptUrl'],

    // receipt: WALLET only, and the Order Management Receipt structure
    ['receipt with CARD', { ...card, receipt: RECEIPT }, 'receipt'],
    ['receipt not an object', { receipt: 'a receipt' }, 'receipt'],
    ['receipt with empty orderLines', receiptWith({}, []), 'receipt.orderLines'],
    ['receipt without orderLines', { receipt: { bottomLine: { currency: 'NOK' } } }, 'receipt.orderLines'],
    ['receipt order line without name', receiptWith({}, [{ ...orderLine, name: undefined }]), 'receipt.orderLines[0].name'],
    [
      'receipt order line with taxPercentage above 100',
      receiptWith({}, [{ ...orderLine, taxPercentage: 101 }]),
      'receipt.orderLines[0].taxPercentage',
    ],
    [
      'receipt order line with a bad unitInfo.quantity',
      receiptWith({}, [{ ...orderLine, unitInfo: { unitPrice: 100, quantity: 'two' } }]),
      'receipt.orderLines[0].unitInfo.quantity',
    ],
    ['receipt without bottomLine', { receipt: { orderLines: [orderLine] } }, 'receipt.bottomLine'],
    ['receipt without bottomLine.currency', { receipt: { orderLines: [orderLine], bottomLine: {} } }, 'receipt.bottomLine.currency'],
    ['receipt with a bad barcode format', receiptWith({ barcode: { format: 'QR', data: '123' } }), 'receipt.bottomLine.barcode.format'],
    ['receipt with a barcode without data', receiptWith({ barcode: { format: 'EAN-13' } }), 'receipt.bottomLine.barcode.data'],

    // expiresAt: RFC 3339, PUSH_MESSAGE or QR only; how far ahead is a domain refusal with a code (below)
    ['expiresAt not a date', () => longLiving('next tuesday'), 'expiresAt'],
    ['expiresAt date only', () => longLiving(ahead(2 * DAY).slice(0, 10)), 'expiresAt'],
    ['expiresAt with a space instead of T', () => longLiving(ahead(2 * DAY).replace('T', ' ')), 'expiresAt'],
    ['expiresAt without a time zone', () => longLiving(ahead(2 * DAY).replace('Z', '')), 'expiresAt'],
    ['expiresAt with WEB_REDIRECT', () => ({ receipt: RECEIPT, expiresAt: ahead(DAY) }), 'expiresAt'],
    ['expiresAt with NATIVE_REDIRECT', () => longLiving(ahead(DAY), { userFlow: 'NATIVE_REDIRECT' }), 'expiresAt'],

    // qrFormat: QR only; size 100..2000 for PNG (ignored for other formats: accepted below)
    ['qrFormat with WEB_REDIRECT', { qrFormat: { format: 'IMAGE/PNG' } }, 'qrFormat'],
    ['qrFormat without format', { ...qr, qrFormat: {} }, 'qrFormat.format'],
    ['qrFormat.format unknown', { ...qr, qrFormat: { format: 'IMAGE/GIF' } }, 'qrFormat.format'],
    ['qrFormat.size below 100', { ...qr, qrFormat: { format: 'IMAGE/PNG', size: 99 } }, 'qrFormat.size'],
    ['qrFormat.size above 2000', { ...qr, qrFormat: { format: 'IMAGE/PNG', size: 2001 } }, 'qrFormat.size'],
    ['qrFormat.size not an integer', { ...qr, qrFormat: { format: 'IMAGE/PNG', size: 512.5 } }, 'qrFormat.size'],

    // paymentDescription: 3..100
    ['paymentDescription shorter than 3', { paymentDescription: 'ab' }, 'paymentDescription'],
    ['paymentDescription longer than 100', { paymentDescription: 'x'.repeat(101) }, 'paymentDescription'],

    // industryData.airlineData: four required fields with fixed lengths
    [
      'airlineData.agencyInvoiceNumber missing',
      airline({ agencyInvoiceNumber: undefined }),
      'industryData.airlineData.agencyInvoiceNumber',
    ],
    [
      'airlineData.agencyInvoiceNumber longer than 6',
      airline({ agencyInvoiceNumber: '1234567' }),
      'industryData.airlineData.agencyInvoiceNumber',
    ],
    ['airlineData.airlineCode missing', airline({ airlineCode: undefined }), 'industryData.airlineData.airlineCode'],
    ['airlineData.airlineCode of 2 digits', airline({ airlineCode: '74' }), 'industryData.airlineData.airlineCode'],
    ['airlineData.airlineCode of 4 digits', airline({ airlineCode: '0745' }), 'industryData.airlineData.airlineCode'],
    ['airlineData.airlineCode with letters', airline({ airlineCode: 'KLM' }), 'industryData.airlineData.airlineCode'],
    [
      'airlineData.airlineDesignatorCode missing',
      airline({ airlineDesignatorCode: undefined }),
      'industryData.airlineData.airlineDesignatorCode',
    ],
    [
      'airlineData.airlineDesignatorCode of 3 characters',
      airline({ airlineDesignatorCode: 'KLM' }),
      'industryData.airlineData.airlineDesignatorCode',
    ],
    ['airlineData.passengerName missing', airline({ passengerName: undefined }), 'industryData.airlineData.passengerName'],
    ['airlineData.passengerName longer than 49', airline({ passengerName: 'p'.repeat(50) }), 'industryData.airlineData.passengerName'],
    ['airlineData.ticketNumber longer than 150', airline({ ticketNumber: '1'.repeat(151) }), 'industryData.airlineData.ticketNumber'],
    ['airlineData not an object', { industryData: { airlineData: 'KL1234' } }, 'industryData.airlineData'],

    // profile.scope: space-separated subset of name address email phoneNumber birthDate nin
    ['profile.scope with an unknown word', { profile: { scope: 'name shoeSize' } }, 'profile.scope'],
    ['profile.scope in the wrong case', { profile: { scope: 'Name' } }, 'profile.scope'],
    ['profile.scope of spaces only', { profile: { scope: '   ' } }, 'profile.scope'],
    ['profile.scope not a string', { profile: { scope: ['name'] } }, 'profile.scope'],

    // metadata: string pairs (its limits are domain refusals with codes, below)
    ['metadata value not a string', { metadata: { note: { n: 42 } } }, 'metadata.note'],
    ['metadata not an object', { metadata: 'note=42' }, 'metadata'],
  ];

  test.each(rules.map(([rule, overrides, field]) => ({ rule, overrides, field })))(
    '$rule -> 400 naming $field',
    async ({ overrides, field }) => {
      expectRefused(await create(overrides), field);
    },
  );
});

describe('domain refusals with a public title and error code', () => {
  test('NOK below 100 is "Amount too small" with ErrorCode 6010, naming amount.value', async () => {
    for (const value of [99, 50]) {
      const res = await create({ amount: { currency: 'NOK', value } });
      expectRefused(res, 'amount.value');
      expect(res.body.title).toBe('Amount too small');
      expect(res.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '6010' });
    }
  });

  test.each([
    ['6 pairs', { metadata: metadataPairs(6) }, 'Metadata capacity exceeded', '4100', 'metadata'],
    ['a 101-character key', { metadata: { ['k'.repeat(101)]: 'v' } }, 'Metadata key length exceeded', '4120', 'metadata'],
    ['a 501-character value', { metadata: { note: 'n'.repeat(501) } }, 'Metadata value length exceeded', '4130', 'metadata.note'],
  ])('metadata with %s is "%s" with ErrorCode %s', async (_what, overrides, title, code, field) => {
    const res = await create(overrides);
    expectRefused(res, field);
    expect(res.body.title).toBe(title);
    expect(res.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: code });
  });

  test('a metadata key written twice is "Metadata duplicate keys" with ErrorCode 4110, though JSON.parse keeps one', async () => {
    const body = JSON.stringify(paymentBody({ metadata: { orderId: '1', note: 'x' } }));
    const twice = body.replace('"orderId":"1"', '"orderId":"1","ord\\u0065rId":"2"');
    expect(twice).not.toBe(body);
    const res = await merchant.request('POST', PAYMENTS, twice, { 'Idempotency-Key': randomUUID() });
    expectRefused(res, 'metadata.orderId');
    expect(res.body.title).toBe('Metadata duplicate keys');
    expect(res.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '4110' });
    // The same key twice elsewhere in the body is JSON as JSON.parse reads it (the last wins): no metadata rule.
    const elsewhere = body.replace('"paymentDescription":', '"paymentDescription":"first","paymentDescription":');
    expect(elsewhere).not.toBe(body);
    expectCreated(await merchant.request('POST', PAYMENTS, elsewhere, { 'Idempotency-Key': randomUUID() }));
  });

  test.each([
    ['60 days and a minute', 60 * DAY + MINUTE],
    ['61 days', 61 * DAY],
  ])('expiresAt %s ahead is "Expiration too late" with ErrorCode 6110', async (_when, ms) => {
    const res = await create(() => longLiving(ahead(ms)));
    expectRefused(res, 'expiresAt');
    expect(res.body.title).toBe('Expiration too late');
    expect(res.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '6110' });
  });

  test.each([
    ['exactly 10 minutes ahead', 10 * MINUTE],
    ['5 minutes ahead', 5 * MINUTE],
    ['in the past', -MINUTE],
  ])('expiresAt %s is "Expiration too soon" with ErrorCode 6120', async (_when, ms) => {
    const res = await create(() => longLiving(ahead(ms)));
    expectRefused(res, 'expiresAt');
    expect(res.body.title).toBe('Expiration too soon');
    expect(res.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '6120' });
  });

  test('CARD in the test environment is "Card payments are not available in the test environment" (4160), naming paymentMethod.type', async () => {
    const res = await create(card);
    expectRefused(res, 'paymentMethod.type');
    expect(res.body.title).toBe('Card payments are not available in the test environment');
    expect(res.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '4160' });
  });

  test('a field error carries no ErrorCode', async () => {
    const res = await create({ reference: 'short' });
    expectRefused(res, 'reference');
    expect(fieldsNamed(res)).not.toContain('ErrorCode');
  });

  test('zero is a field error, not "Amount too small"; 1 DKK minor unit is payable', async () => {
    const zero = await create({ amount: { currency: 'NOK', value: 0 } });
    expect(zero.body.title).toBe('Bad Request');
    expect(zero.body.extraDetails).toContainEqual({ name: 'amount.value', reason: 'Must be at least 1' });
    expectCreated(await create({ amount: { currency: 'DKK', value: 1 } }));
  });

  test('every field error is reported before a domain refusal such as "Expiration too soon"', async () => {
    const res = await create(() => longLiving(ahead(5 * MINUTE), { paymentDescription: 'ab', metadata: { note: false } }));
    expect(res.status).toBe(400);
    expect(res.body.title).toBe('Bad Request');
    expect(fieldsNamed(res).sort()).toEqual(['metadata.note', 'paymentDescription']);
    // With the fields put right, the domain rule speaks.
    const fixed = await create(() => longLiving(ahead(5 * MINUTE)));
    expect(fixed.body.title).toBe('Expiration too soon');
  });

  test('a WEB_REDIRECT body with an early expiresAt hears the userFlow rule, not "Expiration too soon"', async () => {
    const res = await create(() => ({ receipt: RECEIPT, expiresAt: ahead(5 * MINUTE) }));
    expect(res.status).toBe(400);
    expect(res.body.title).toBe('Bad Request');
    expect(res.body.extraDetails).toContainEqual({ name: 'expiresAt', reason: 'Only allowed when userFlow is PUSH_MESSAGE or QR' });
  });

  test('expiresAt without a receipt is "Long living payments require a receipt" with ErrorCode 6130', async () => {
    const res = await create(() => longLiving(ahead(2 * DAY), { receipt: undefined }));
    expectRefused(res, 'receipt');
    expect(res.body.title).toBe('Long living payments require a receipt');
    expect(res.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '6130' });
  });
});

describe('expiresAt must name an instant that exists', () => {
  // An app whose clock stands at 20 February, so that "30 February" would fall inside the 10 min..60 days window.
  const year = new Date().getUTCFullYear() + 1;
  let february: TestApp;
  let client: MerchantClient;
  beforeAll(async () => {
    february = await startTestApp();
    february.clock.advance(Date.UTC(year, 1, 20, 12) - february.clock.now().getTime());
    client = new MerchantClient(february.baseUrl);
  });
  afterAll(() => february.close());

  const createAt = (expiresAt: string) =>
    client.request('POST', PAYMENTS, paymentBody(longLiving(expiresAt)), { 'Idempotency-Key': randomUUID() });

  test.each([
    ['30 February', `${year}-02-30T12:00:00Z`],
    ['31 February', `${year}-02-31T12:00:00Z`],
    ['hour 24', `${year}-02-25T24:00:00Z`],
    ['minute 60', `${year}-02-25T12:60:00Z`],
    ['an offset of +24:00', `${year}-02-25T12:00:00+24:00`],
  ])('%s is not RFC 3339 -> 400 naming expiresAt', async (_what, expiresAt) => {
    expectRefused(await createAt(expiresAt), 'expiresAt');
  });

  test('28 February, lowercase t and z, is accepted', async () => {
    expectCreated(await createAt(`${year}-02-28t12:00:00z`));
  });
});

describe('accepted at the boundaries', () => {
  const accepted: [what: string, overrides: BodyCase][] = [
    ['reference of exactly 8 characters', { reference: randomUUID().slice(0, 8) }],
    ['reference of exactly 50 characters', { reference: `${randomUUID()}${randomUUID()}`.replace(/-/g, 'x').slice(0, 50) }],
    ['NOK 100 (the smallest payable amount)', { amount: { currency: 'NOK', value: 100 } }],
    ['65,000,000 (the largest amount)', { amount: { currency: 'NOK', value: 65_000_000 } }],
    ['customer by personalQr', { customer: { personalQr: 'https://qr.example/personal/abc' } }],
    ['customer with null for the unused identifiers', { customer: { phoneNumber: '4791234567', personalQr: null, customerToken: null } }],
    ['customerInteraction CUSTOMER_PRESENT', { customerInteraction: 'CUSTOMER_PRESENT' }],
    ['returnUrl with https://', { returnUrl: 'https://merchant.example/return?order=1' }],
    ['returnUrl with a custom app scheme', { returnUrl: 'myapp://x' }],
    ['PUSH_MESSAGE with a customer', push],
    ['NATIVE_REDIRECT without returnUrl', { userFlow: 'NATIVE_REDIRECT', ...withoutReturnUrl }],
    [
      'a full receipt with a barcode',
      receiptWith({ tipAmount: 0, barcode: { format: 'CODE 128', data: '123456' }, receiptNumber: 'R-1' }, [
        { ...orderLine, unitInfo: { unitPrice: 5_000, quantity: '2', quantityUnit: 'PCS' } },
      ]),
    ],
    ['a long-living QR payment with a receipt', () => longLiving(ahead(2 * DAY))],
    [
      'a long-living PUSH_MESSAGE payment just over 10 minutes ahead',
      () => ({ ...push, receipt: RECEIPT, expiresAt: ahead(10 * MINUTE + 1_000) }),
    ],
    [
      'a long-living payment just under 28 days ahead, with a time zone offset',
      () => longLiving(ahead(28 * DAY - MINUTE).replace('Z', '+00:00')),
    ],
    ['a long-living payment exactly 60 days ahead', () => longLiving(ahead(60 * DAY))],
    ['QR without qrFormat', qr],
    ['QR as PNG with a size', { ...qr, qrFormat: { format: 'IMAGE/PNG', size: 500 } }],
    ['QR as PNG of 100 px', { ...qr, qrFormat: { format: 'IMAGE/PNG', size: 100 } }],
    ['QR as PNG of 2000 px', { ...qr, qrFormat: { format: 'IMAGE/PNG', size: 2000 } }],
    ['QR as SVG without a size', { ...qr, qrFormat: { format: 'IMAGE/SVG+XML' } }],
    ['QR as target URL', { ...qr, qrFormat: { format: 'TEXT/TARGETURL' } }],
    ['paymentDescription of 3 characters', { paymentDescription: 'abc' }],
    ['paymentDescription of 100 characters', { paymentDescription: 'x'.repeat(100) }],
    ['no paymentDescription', { paymentDescription: undefined }],
    ['airline data', { industryData: { airlineData: AIRLINE } }],
    ['airline data without ticketNumber', airline({ ticketNumber: undefined })],
    ['profile.scope of several known words', { profile: { scope: 'name phoneNumber email' } }],
    ['5 metadata pairs of 500-character values', { metadata: metadataPairs(5, 'v'.repeat(500)) }],
    // Issue 19 point 6: what real clients send and the platform accepts. A customer naming nobody is no customer
    // (WooCommerce's express checkout); a size with a format that has no pixels is ignored, whatever it is.
    ['a customer with only customerInteraction', { customer: { customerInteraction: 'CUSTOMER_PRESENT' } }],
    ['a customer whose phoneNumber is null', { customer: { phoneNumber: null } }],
    ['an empty customer', { customer: {} }],
    ['QR as SVG with a size', { ...qr, qrFormat: { format: 'IMAGE/SVG+XML', size: 500 } }],
    ['QR as SVG with a size out of the PNG range', { ...qr, qrFormat: { format: 'IMAGE/SVG+XML', size: 5 } }],
    ['QR as target URL with a size', { ...qr, qrFormat: { format: 'TEXT/TARGETURL', size: 500 } }],
  ];

  test.each(accepted)('%s -> 201', async (_what, overrides) => {
    expectCreated(await create(overrides));
  });

  test('a customer naming nobody is no customer: PUSH_MESSAGE still needs a phone number', async () => {
    const refused = await create({ ...push, customer: { customerInteraction: 'CUSTOMER_NOT_PRESENT' } });
    expect(refused.status).toBe(400);
    expect(refused.body.extraDetails).toContainEqual(expect.objectContaining({ name: 'customer.phoneNumber' }));
    expectCreated(await create({ ...push, customer: { customerInteraction: 'CUSTOMER_NOT_PRESENT', phoneNumber: '4791234567' } }));
  });
});

describe('the body as a whole', () => {
  test('malformed JSON is a 400 naming body', async () => {
    expectRefused(await merchant.request('POST', PAYMENTS, '{"reference": "abc-12345",', { 'Idempotency-Key': randomUUID() }), 'body');
  });

  test.each([
    ['an empty body', ''],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
    ['a JSON string', '"payment"'],
  ])('%s is a 400 naming body', async (_what, raw) => {
    expectRefused(await merchant.request('POST', PAYMENTS, raw, { 'Idempotency-Key': randomUUID() }), 'body');
  });

  test('every failing field is listed, not just the first', async () => {
    const res = await create({ reference: 'short', amount: { currency: 'SEK', value: 100 }, paymentDescription: 'ab' });
    expectRefused(res, 'reference');
    expect(fieldsNamed(res)).toEqual(expect.arrayContaining(['reference', 'amount.currency', 'paymentDescription']));
  });

  test('a refused body creates no payment', async () => {
    const reference = newReference();
    expectRefused(await create({ reference, returnUrl: 'http://merchant.example/return' }), 'returnUrl');
    expect((await merchant.getPayment(reference)).status).toBe(404);
  });
});

describe('header rules: credentials first, then the format of every header', () => {
  /** Only what a caller without a token sends: no Authorization at all. */
  const anonymous = (extra: Record<string, string>) => ({
    'Content-Type': 'application/json',
    'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey,
    'Idempotency-Key': randomUUID(),
    ...extra,
  });

  test.each([
    ['no Authorization header', {}],
    ['a garbage token', { Authorization: 'Bearer not-a-token' }],
  ])('Merchant-Serial-Number "12a" with %s is a 401 naming the token, not a 400', async (_what, auth) => {
    const res = await merchant.raw('POST', PAYMENTS, paymentBody(), anonymous({ 'Merchant-Serial-Number': '12a', ...auth }));
    expect({ status: res.status, contentType: res.headers.get('content-type') }).toEqual({
      status: 401,
      contentType: expect.stringContaining('application/problem+json'),
    });
    expect(res.body.extraDetails.map((d: { name: string }) => d.name)).toEqual(['Authorization']);
  });

  /** The merchant's valid headers with `overrides` on top; an `undefined` override leaves that header out. */
  async function headersWith(overrides: Record<string, string | undefined>): Promise<Record<string, string>> {
    const all: Record<string, string | undefined> = { ...(await merchant.headers()), 'Idempotency-Key': randomUUID(), ...overrides };
    return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
  }

  const refused: [what: string, headers: Record<string, string | undefined>, field: string][] = [
    ['Merchant-Serial-Number "12a"', { 'Merchant-Serial-Number': '12a' }, 'Merchant-Serial-Number'],
    ['Merchant-Serial-Number of 3 digits', { 'Merchant-Serial-Number': '123' }, 'Merchant-Serial-Number'],
    ['Merchant-Serial-Number of 7 digits', { 'Merchant-Serial-Number': '1234567' }, 'Merchant-Serial-Number'],
    ['Merchant-Serial-Number missing', { 'Merchant-Serial-Number': undefined }, 'Merchant-Serial-Number'],
    ['Merchant-Serial-Number empty', { 'Merchant-Serial-Number': '' }, 'Merchant-Serial-Number'],
    ['Idempotency-Key missing', { 'Idempotency-Key': undefined }, 'Idempotency-Key'],
    ['Idempotency-Key empty', { 'Idempotency-Key': '' }, 'Idempotency-Key'],
    ['Idempotency-Key of 51 characters', { 'Idempotency-Key': 'k'.repeat(51) }, 'Idempotency-Key'],
    ['Svc-System-Name of 31 characters', { 'Svc-System-Name': 's'.repeat(31) }, 'Svc-System-Name'],
    ['Svc-System-Version of 31 characters', { 'Svc-System-Version': '1'.repeat(31) }, 'Svc-System-Version'],
    ['Svc-System-Plugin-Name of 31 characters', { 'Svc-System-Plugin-Name': 'p'.repeat(31) }, 'Svc-System-Plugin-Name'],
    ['Vipps-System-Plugin-Version of 31 characters', { 'Vipps-System-Plugin-Version': '2'.repeat(31) }, 'Vipps-System-Plugin-Version'],
  ];

  test.each(refused.map(([what, headers, field]) => ({ what, headers, field })))(
    '$what -> 400 naming $field',
    async ({ headers, field }) => {
      expectRefused(await merchant.raw('POST', PAYMENTS, paymentBody(), await headersWith(headers)), field);
    },
  );

  test.each([
    [
      'empty optional system headers',
      { 'Svc-System-Name': '', 'Svc-System-Version': '', 'Svc-System-Plugin-Name': '', 'Svc-System-Plugin-Version': '' },
    ],
    ['empty Vipps-System-* headers', { 'Vipps-System-Name': '', 'Vipps-System-Version': '' }],
    ['system headers of exactly 30 characters', { 'Svc-System-Name': 's'.repeat(30), 'Vipps-System-Plugin-Version': '1'.repeat(30) }],
    ['an Idempotency-Key of exactly 50 characters', { 'Idempotency-Key': 'k'.repeat(50) }],
  ])('%s -> 201', async (_what, headers) => {
    expectCreated(await create({}, headers));
  });
});

describe('the same rules through the GraphQL createPayment mutation', () => {
  const CREATE = /* GraphQL */ `
    mutation Create($input: CreatePaymentInput!) {
      createPayment(input: $input) {
        payment {
          reference
          state
        }
        redirectUrl
        userErrors {
          code
          field
          message
          errorCode
        }
      }
    }
  `;

  function graphInput(overrides: Overrides = {}): Overrides {
    return {
      idempotencyKey: randomUUID(),
      reference: newReference('gql'),
      amount: { currency: 'NOK', value: 10_000 },
      paymentMethod: 'WALLET',
      userFlow: 'WEB_REDIRECT',
      returnUrl: 'https://merchant.example/return',
      ...overrides,
    };
  }

  async function createByGraph(
    overrides: Overrides,
  ): Promise<{ payment: unknown; userErrors: { code: string; field: string | null; message: string; errorCode: string | null }[] }> {
    const res = await merchant.graphql(CREATE, { input: graphInput(overrides) });
    expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
    return res.body.data.createPayment;
  }

  const pairs = (count: number, value = 'v') => Array.from({ length: count }, (_, i) => ({ key: `key${i}`, value }));

  test.each([
    ['a reference that breaks the pattern', { reference: 'short' }, 'VALIDATION_FAILED', 'reference'],
    ['an http:// returnUrl', { returnUrl: 'http://merchant.example/return' }, 'VALIDATION_FAILED', 'returnUrl'],
    [
      'a PNG size above 2000',
      { userFlow: 'QR', returnUrl: null, qrFormat: { format: 'IMAGE_PNG', size: 2001 } },
      'VALIDATION_FAILED',
      'qrFormat.size',
    ],
    ['NOK below 100', { amount: { currency: 'NOK', value: 99 } }, 'AMOUNT_TOO_SMALL', 'amount.value'],
    ['6 metadata pairs', { metadata: pairs(6) }, 'METADATA_CAPACITY_EXCEEDED', 'metadata'],
    [
      'a metadata key listed twice',
      { metadata: [...pairs(2), { key: 'key0', value: 'again' }] },
      'METADATA_DUPLICATE_KEYS',
      'metadata.key0',
    ],
    ['a 101-character metadata key', { metadata: [{ key: 'k'.repeat(101), value: 'v' }] }, 'METADATA_KEY_LENGTH_EXCEEDED', 'metadata'],
    ['a 501-character metadata value', { metadata: pairs(1, 'v'.repeat(501)) }, 'METADATA_VALUE_LENGTH_EXCEEDED', 'metadata.key0'],
    [
      'PUSH_MESSAGE with a customer naming nobody',
      { userFlow: 'PUSH_MESSAGE', returnUrl: null, customer: {} },
      'VALIDATION_FAILED',
      'customer.phoneNumber',
    ],
    ['EUR 0', { amount: { currency: 'EUR', value: 0 } }, 'VALIDATION_FAILED', 'amount.value'],
    ['CARD in the test environment', { paymentMethod: 'CARD' }, 'CARD_NOT_AVAILABLE_IN_TEST', 'paymentMethod.type'],
    [
      'PUSH_MESSAGE with a personalQr',
      { userFlow: 'PUSH_MESSAGE', returnUrl: null, customer: { personalQr: 'https://qr.example/personal/abc' } },
      'VALIDATION_FAILED',
      'customer.phoneNumber',
    ],
  ])('%s is a userError naming the same field and ErrorCode as REST', async (_what, overrides, code, field) => {
    const payload = await createByGraph(overrides);
    expect(payload.payment).toBeNull();
    const errorCode = GRAPH_ERROR_CODES[code] ?? null;
    expect(payload.userErrors).toContainEqual({ code, field, message: expect.any(String), errorCode });
  });

  test('expiresAt past 60 days is EXPIRATION_TOO_LATE (6110)', async () => {
    const payload = await createByGraph({ userFlow: 'QR', returnUrl: null, receipt: RECEIPT, expiresAt: ahead(60 * DAY + MINUTE) });
    expect(payload.userErrors).toEqual([
      { code: 'EXPIRATION_TOO_LATE', field: 'expiresAt', message: expect.stringContaining('Expiration too late'), errorCode: '6110' },
    ]);
  });

  test('expiresAt too soon is EXPIRATION_TOO_SOON on expiresAt', async () => {
    const payload = await createByGraph({ userFlow: 'QR', returnUrl: null, receipt: RECEIPT, expiresAt: ahead(5 * MINUTE) });
    expect(payload.userErrors).toEqual([
      { code: 'EXPIRATION_TOO_SOON', field: 'expiresAt', message: expect.stringContaining('Expiration too soon'), errorCode: '6120' },
    ]);
  });

  test('a valid input creates the payment with no userErrors', async () => {
    const reference = newReference('gql');
    const payload = await createByGraph({ reference });
    expect(payload).toEqual({ payment: { reference, state: 'CREATED' }, redirectUrl: expect.any(String), userErrors: [] });
  });

  test('as on REST, a customer naming nobody is no customer, and an SVG QR ignores its size', async () => {
    for (const overrides of [
      { customer: { phoneNumber: null } },
      { customer: {} },
      { userFlow: 'QR', returnUrl: null, qrFormat: { format: 'IMAGE_SVG', size: 5 } },
    ]) {
      const payload = await createByGraph(overrides);
      expect([overrides, payload.userErrors]).toEqual([overrides, []]);
    }
  });
});
