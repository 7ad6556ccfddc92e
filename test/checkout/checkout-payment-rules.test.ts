import { useTestApp } from '../support/app-fixture.js';
import { MERCHANT_B } from '../support/merchant-client.js';
import { mgmt } from '../management/management-support.js';
import { CheckoutClient, newSessionReference, sessionBody, submitCheckoutPage } from './support/checkout-client.js';

/**
 * Issue 24: a checkout's payment is created by the payment service, whose refusals hold for every caller. A
 * checkout of an amount `POST /epayment/v1/payments` refuses is refused when the session is opened (or changed),
 * on both faces; a refusal when the buyer pays leaves the session as it was and no payment behind.
 */
const t = useTestApp();
const checkout = () => new CheckoutClient(t.baseUrl);

const CREATE = `mutation($input: CreateCheckoutSessionInput!) {
  createCheckoutSession(input: $input) { session { reference } token userErrors { code field message } }
}`;
const SESSION = `query($reference: String!) { checkoutSession(reference: $reference) { reference } }`;
const FIFTY_ORE = { value: 50, currency: 'NOK' };

const pay = (token: string, fields: Record<string, string>) => submitCheckoutPage(t.baseUrl, '/checkout/page/pay', token, fields);

describe('a checkout is refused what ePayment refuses', () => {
  it('a 50-øre session is refused over REST as ePayment refuses a 50-øre payment, naming the amount', async () => {
    const payment = await t.merchant.createPayment({ amount: FIFTY_ORE });
    expect(payment.status).toBe(400);
    expect(payment.body.title).toBe('Amount too small');

    const reference = newSessionReference();
    const res = await checkout().createSession({ transaction: { reference, amount: FIFTY_ORE } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 400,
      errorCode: 'Validation-00001',
      errors: { 'transaction.amount.value': ['Must be at least 100 for NOK'] },
    });
    expect((await checkout().getSession(reference)).status).toBe(404);
    expect((await t.merchant.getPayment(reference)).status).toBe(404);
    // The smallest payable amount opens a session.
    expect((await checkout().createSession({ transaction: { amount: { value: 100, currency: 'NOK' } } })).status).toBe(200);
  });

  it('a 50-øre session is refused in the graph as a userError naming the amount, and nothing is created', async () => {
    const reference = newSessionReference();
    const res = await t.merchant.graphql(CREATE, { input: sessionBody({ transaction: { reference, amount: FIFTY_ORE } }) });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createCheckoutSession).toEqual({
      session: null,
      token: null,
      userErrors: [{ code: 'VALIDATION_FAILED', field: 'transaction.amount.value', message: expect.any(String) }],
    });
    expect((await t.merchant.graphql(SESSION, { reference })).body.data.checkoutSession).toBeNull();
  });

  it('an update to 50 øre is refused on both faces; the session keeps its amount', async () => {
    const reference = newSessionReference();
    expect((await checkout().createSession({ transaction: { reference } })).status).toBe(200);
    const rest = await checkout().raw('PATCH', `/checkout/v3/session/${reference}`, { transaction: { amount: FIFTY_ORE } });
    expect(rest.status).toBe(400);
    expect(rest.body.errors).toEqual({ 'transaction.amount.value': ['Must be at least 100 for NOK'] });
    const graph = await t.merchant.graphql(
      `mutation($input: UpdateCheckoutSessionInput!) { updateCheckoutSession(input: $input) { userErrors { code field } } }`,
      { input: { reference, transaction: { amount: FIFTY_ORE } } },
    );
    expect(graph.body.data.updateCheckoutSession.userErrors).toEqual([{ code: 'VALIDATION_FAILED', field: 'transaction.amount.value' }]);
    const session = await t.merchant.graphql(`query($r: String!) { checkoutSession(reference: $r) { amount { value } } }`, {
      r: reference,
    });
    expect(session.body.data.checkoutSession.amount.value).toBe(2000);
  });

  it('a payment the service refuses when the buyer pays leaves the session SessionCreated and no payment', async () => {
    const merchantB = new CheckoutClient(t.baseUrl, MERCHANT_B);
    const reference = newSessionReference();
    const created = await merchantB.createSession({
      transaction: { reference },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    expect(created.status).toBe(200);
    // The unit is deactivated after the session opened: the payment service refuses the payment.
    expect((await mgmt(t.otherMerchant, 'PATCH', '/sales-units/654321', { status: 'DEACTIVATED' })).status).toBe(200);
    try {
      const refused = await pay(created.body.token, { walletPhone: '91234567' });
      expect(refused.status).toBe(400);
      expect(refused.html).toContain('This order cannot be paid');
      expect((await merchantB.getSession(reference)).body).toEqual(expect.objectContaining({ sessionState: 'SessionCreated' }));
      expect((await merchantB.getSession(reference)).body.paymentDetails).toBeUndefined();
    } finally {
      expect((await mgmt(t.otherMerchant, 'PATCH', '/sales-units/654321', { status: 'ACTIVE' })).status).toBe(200);
    }
    expect((await t.otherMerchant.getPayment(reference)).status).toBe(404);
    // Active again, the same session is paid.
    const paid = await pay(created.body.token, { walletPhone: '91234567' });
    expect(paid.status).toBe(200);
    expect((await merchantB.getSession(reference)).body.sessionState).toBe('PaymentSuccessful');
  });
});
