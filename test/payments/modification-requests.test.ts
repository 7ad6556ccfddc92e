import { randomUUID } from 'node:crypto';
import { MerchantClient, newReference, type HttpResult } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The request rules of the three modification routes (FACTS §1.1): headers, the path reference
 * (`^[a-zA-Z0-9-]{8,50}$`) and the modification amount. Each refusal is a 400 naming what is wrong, and nothing
 * about the payment changes.
 */
let t: TestApp;
let merchant: MerchantClient;
let reference: string;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  reference = await merchant.authorizedPayment(10_000);
  // Something captured, so a well-formed refund would succeed and only the rule under test can refuse it.
  await merchant.modify(reference, 'capture', 5_000);
});
afterAll(() => t.close());

type Operation = 'capture' | 'refund' | 'cancel';
const OPERATIONS: Operation[] = ['capture', 'refund', 'cancel'];
const goodBody = (operation: Operation) => (operation === 'cancel' ? undefined : { modificationAmount: { currency: 'NOK', value: 100 } });

function post(operation: Operation, options: { ref?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  const body = 'body' in options ? options.body : goodBody(operation);
  return merchant.request('POST', `/epayment/v1/payments/${options.ref ?? reference}/${operation}`, body, {
    'Idempotency-Key': randomUUID(),
    ...options.headers,
  });
}

function expectRefusedNaming(res: HttpResult, name: string): void {
  expect({ status: res.status, contentType: res.headers.get('content-type') }).toEqual({
    status: 400,
    contentType: expect.stringContaining('application/problem+json'),
  });
  expect(res.body.extraDetails.map((d: { name: string }) => d.name)).toContain(name);
}

const requestCases: [what: string, options: Parameters<typeof post>[1], names: string][] = [
  ['no Idempotency-Key', { headers: { 'Idempotency-Key': '' } }, 'Idempotency-Key'],
  ['an Idempotency-Key of 51 characters', { headers: { 'Idempotency-Key': 'k'.repeat(51) } }, 'Idempotency-Key'],
  ['Svc-System-Name of 31 characters', { headers: { 'Svc-System-Name': 'n'.repeat(31) } }, 'Svc-System-Name'],
  ['Svc-System-Version of 31 characters', { headers: { 'Svc-System-Version': '1'.repeat(31) } }, 'Svc-System-Version'],
  ['Svc-System-Plugin-Name of 31 characters', { headers: { 'Svc-System-Plugin-Name': 'p'.repeat(31) } }, 'Svc-System-Plugin-Name'],
  ['a path reference shorter than 8', { ref: 'abc-123' }, 'reference'],
  ['a path reference longer than 50', { ref: 'r'.repeat(51) }, 'reference'],
  ['a path reference with an underscore', { ref: 'order_12345' }, 'reference'],
  ['a path reference with a percent-encoded space', { ref: 'order%2012345' }, 'reference'],
];

describe.each(OPERATIONS)('%s', (operation) => {
  test.each(requestCases)('%s -> 400 naming %s', async (_what, options, name) => {
    expectRefusedNaming(await post(operation, options), name);
  });
});

const amountCases: [what: string, body: unknown, name: string][] = [
  ['no body', undefined, 'modificationAmount'],
  ['an empty object', {}, 'modificationAmount'],
  ['modificationAmount not an object', { modificationAmount: 100 }, 'modificationAmount'],
  ['value 0', { modificationAmount: { currency: 'NOK', value: 0 } }, 'modificationAmount.value'],
  ['a negative value', { modificationAmount: { currency: 'NOK', value: -100 } }, 'modificationAmount.value'],
  ['a fractional value', { modificationAmount: { currency: 'NOK', value: 1.5 } }, 'modificationAmount.value'],
  // Digits in a string are the integer (issue 19); anything else in a string is not an amount.
  ['a decimal value in a string', { modificationAmount: { currency: 'NOK', value: '100.0' } }, 'modificationAmount.value'],
  ['no value', { modificationAmount: { currency: 'NOK' } }, 'modificationAmount.value'],
  ['an unknown currency', { modificationAmount: { currency: 'SEK', value: 100 } }, 'modificationAmount.currency'],
  ['no currency', { modificationAmount: { value: 100 } }, 'modificationAmount.currency'],
  ["another currency than the payment's", { modificationAmount: { currency: 'EUR', value: 100 } }, 'modificationAmount.currency'],
];

describe.each(['capture', 'refund'] as const)('%s amount', (operation) => {
  test.each(amountCases)('%s -> 400 naming %s', async (_what, body, name) => {
    expectRefusedNaming(await post(operation, { body }), name);
  });

  test('a well-formed request passes (so the cases above fail for their rule only)', async () => {
    expect((await post(operation)).status).toBe(200);
  });
});

test('none of the refused requests changed the payment', async () => {
  const events = (await merchant.events(reference)).body.map(
    (e: { name: string; amount: { value: number } }) => `${e.name}:${e.amount.value}`,
  );
  expect(events).toEqual(['CREATED:10000', 'AUTHORIZED:10000', 'CAPTURED:5000', 'CAPTURED:100', 'REFUNDED:100']);
});

test('a well-formed reference that does not exist is a 404 on every route', async () => {
  for (const operation of OPERATIONS) {
    const res = await post(operation, { ref: newReference('missing') });
    expect({ status: res.status, title: res.body.title }).toEqual({ status: 404, title: 'Reference not found' });
  }
});
