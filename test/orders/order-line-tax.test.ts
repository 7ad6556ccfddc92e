import { randomUUID } from 'node:crypto';
import { CheckoutClient, sessionBody } from '../checkout/support/checkout-client.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 19 point 4: order lines with `taxRate` (Order Management 2.1, hundredths of a percent) instead of
 * `taxPercentage`, on ePayment receipts, order management and checkout, on REST and in the graph.
 */
let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

/** A line as WooCommerce sends it: 12.5 %, which a whole percent cannot say. */
const line = (tax: Record<string, unknown>) => ({
  name: 'Socks',
  id: 'line-1',
  totalAmount: 11_250,
  totalAmountExcludingTax: 10_000,
  totalTaxAmount: 1_250,
  ...tax,
});
const receipt = (tax: Record<string, unknown>) => ({ orderLines: [line(tax)], bottomLine: { currency: 'NOK' } });

const ORDER_LINES = `query($r: String!) { payment(reference: $r) { order { orderLines { taxPercentage taxRate } } } }`;

describe('ePayment receipts', () => {
  test('a line with taxRate only is taken, stored as sent, and read back in both units', async () => {
    const reference = newReference();
    const created = await merchant.createPayment({ reference, receipt: receipt({ taxRate: 1250 }), returnUrl: 'https://example.com/r' });
    expect(created.status).toBe(201);
    const order = await merchant.request('GET', `/order-management/v2/ecom/${reference}`);
    expect(order.status).toBe(200);
    expect(order.body.receipt.orderLines[0]).toEqual(line({ taxRate: 1250 }));
    const graph = await merchant.graphql(ORDER_LINES, { r: reference });
    expect(graph.body.data.payment.order.orderLines).toEqual([{ taxPercentage: null, taxRate: 1250 }]);
  });

  test('both given and agreeing is taken; the graph derives the unit not sent', async () => {
    const both = newReference();
    expect((await merchant.createPayment({ reference: both, receipt: receipt({ taxPercentage: 25, taxRate: 2500 }) })).status).toBe(201);
    const percentOnly = newReference();
    expect((await merchant.createPayment({ reference: percentOnly, receipt: receipt({ taxPercentage: 25 }) })).status).toBe(201);
    const wholeRate = newReference();
    expect((await merchant.createPayment({ reference: wholeRate, receipt: receipt({ taxRate: 1500 }) })).status).toBe(201);
    expect((await merchant.graphql(ORDER_LINES, { r: percentOnly })).body.data.payment.order.orderLines).toEqual([
      { taxPercentage: 25, taxRate: 2500 },
    ]);
    expect((await merchant.graphql(ORDER_LINES, { r: wholeRate })).body.data.payment.order.orderLines).toEqual([
      { taxPercentage: 15, taxRate: 1500 },
    ]);
  });

  test.each([
    ['two values that disagree', { taxPercentage: 25, taxRate: 1250 }, 'receipt.orderLines[0].taxRate'],
    ['neither', {}, 'receipt.orderLines[0].taxPercentage'],
    ['a taxRate above 100 %', { taxRate: 10_001 }, 'receipt.orderLines[0].taxRate'],
    ['a taxRate not an integer', { taxRate: 12.5 }, 'receipt.orderLines[0].taxRate'],
  ])('%s: 400 naming the field', async (_what, tax, field) => {
    const reference = newReference();
    const res = await merchant.createPayment({ reference, receipt: receipt(tax) });
    expect(res.status).toBe(400);
    expect(res.body.extraDetails.map((d: { name: string }) => d.name)).toContain(field);
    expect((await merchant.getPayment(reference)).status).toBe(404);
  });

  test('the graph create takes taxRate and refuses a disagreement as a userError naming the field', async () => {
    const CREATE = `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { payment { reference } userErrors { code field } } }`;
    const input = (tax: Record<string, unknown>) => ({
      idempotencyKey: randomUUID(),
      reference: newReference('gql'),
      amount: { currency: 'NOK', value: 11_250 },
      paymentMethod: 'WALLET',
      userFlow: 'WEB_REDIRECT',
      returnUrl: 'https://merchant.example/return',
      receipt: receipt(tax),
    });
    const taken = input({ taxRate: 1250, taxPercentage: null });
    expect((await merchant.graphql(CREATE, { input: taken })).body.data.createPayment.userErrors).toEqual([]);
    expect((await merchant.graphql(ORDER_LINES, { r: taken.reference })).body.data.payment.order.orderLines).toEqual([
      { taxPercentage: null, taxRate: 1250 },
    ]);
    const refused = await merchant.graphql(CREATE, { input: input({ taxRate: 1250, taxPercentage: 12 }) });
    expect(refused.body.data.createPayment).toEqual({
      payment: null,
      userErrors: [{ code: 'VALIDATION_FAILED', field: 'receipt.orderLines[0].taxRate' }],
    });
  });
});

describe('order management', () => {
  test('a receipt with taxRate is taken and read back as sent; a disagreement is refused naming the field', async () => {
    const orderId = `order-${randomUUID()}`;
    const sent = receipt({ taxRate: 1250 });
    expect((await merchant.request('POST', `/order-management/v2/ecom/receipts/${orderId}`, sent)).status).toBe(201);
    expect((await merchant.request('GET', `/order-management/v2/ecom/${orderId}`)).body.receipt).toEqual(sent);
    const refused = await merchant.request(
      'POST',
      `/order-management/v2/ecom/receipts/order-${randomUUID()}`,
      receipt({ taxPercentage: 25, taxRate: 2400 }),
    );
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.invalidParams)).toContain('orderLines[0].taxRate');
  });

  test('the graph mutation shares the rule', async () => {
    const ADD = `mutation($input: AddOrderReceiptInput!) { addOrderReceipt(input: $input) { receiptId userErrors { code field } } }`;
    const add = (tax: Record<string, unknown>) =>
      merchant.graphql(ADD, { input: { paymentType: 'ECOM', orderId: `order-${randomUUID()}`, receipt: receipt(tax) } });
    const taken = await add({ taxRate: 1250 });
    expect(taken.body.data.addOrderReceipt.userErrors).toEqual([]);
    const refused = await add({});
    expect(refused.body.data.addOrderReceipt.userErrors).toEqual([expect.objectContaining({ field: 'orderLines[0].taxPercentage' })]);
  });
});

describe('checkout', () => {
  const summary = (tax: Record<string, unknown>) => ({
    amount: { value: 11_250, currency: 'NOK' },
    orderSummary: { orderLines: [line(tax)], orderBottomLine: { currency: 'NOK' } },
  });

  test('an order line with taxRate is taken; one whose values disagree is refused naming the field', async () => {
    const checkout = new CheckoutClient(t.baseUrl);
    const taken = await checkout.createSession({ transaction: summary({ taxRate: 1250 }) });
    expect(taken.status).toBe(200);
    const refused = await checkout.raw(
      'POST',
      '/checkout/v3/session',
      sessionBody({ transaction: summary({ taxPercentage: 25, taxRate: 1250 }) }),
    );
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.errors)).toContain('transaction.orderSummary.orderLines[0].taxRate');
  });

  test('the graph create shares the rule', async () => {
    const CREATE = `mutation($input: CreateCheckoutSessionInput!) { createCheckoutSession(input: $input) { token userErrors { code field } } }`;
    const taken = await merchant.graphql(CREATE, { input: sessionBody({ transaction: summary({ taxRate: 1250 }) }) });
    expect(taken.body.data.createCheckoutSession.userErrors).toEqual([]);
    const refused = await merchant.graphql(CREATE, { input: sessionBody({ transaction: summary({ taxPercentage: 12, taxRate: 1250 }) }) });
    expect(refused.body.data.createCheckoutSession.userErrors).toEqual([
      expect.objectContaining({ field: 'transaction.orderSummary.orderLines[0].taxRate' }),
    ]);
  });
});
