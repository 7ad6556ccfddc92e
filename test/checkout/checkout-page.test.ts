import { forkEm } from '../../src/platform/db/orm.js';
import { useTestApp } from '../support/app-fixture.js';
import { eventually } from '../support/subscriber.js';
import { CheckoutClient, newSessionReference, submitCheckoutPage } from './support/checkout-client.js';
import { MerchantEndpoints } from './support/merchant-endpoints.js';

const t = useTestApp();
const endpoints = new MerchantEndpoints();
beforeAll(() => endpoints.start());
afterAll(() => endpoints.stop());
const checkout = () => new CheckoutClient(t.baseUrl);

/** The buyer's browser: the page by its URL, and its forms posted as a browser posts them. */
async function openPage(url: string): Promise<{ status: number; html: string }> {
  const res = await fetch(url);
  return { status: res.status, html: await res.text() };
}
const submit = (path: string, token: string, fields: Record<string, string>) => submitCheckoutPage(t.baseUrl, path, token, fields);
const buyer = {
  firstName: 'Ola',
  lastName: 'Nordmann',
  email: 'ola@example.com',
  phoneNumber: '+4791234567',
  streetAddress: 'Storgata 1',
  postalCode: '0155',
  city: 'Oslo',
  country: 'NO',
};

describe('the checkout page and its payment', () => {
  it('pays through an ePayment payment: PaymentSuccessful, shipping in the details, callback sent, merchant captures over ePayment', async () => {
    const callbackUrl = endpoints.on('/cb-success', () => ({ status: 200 }));
    const reference = newSessionReference();
    const created = await checkout().createSession({
      merchantInfo: { callbackUrl, callbackAuthorizationToken: 'secret-cb-1' },
      transaction: { reference },
      configuration: { elements: 'Full', customConsent: { text: 'I want news', required: true }, requireUserInfo: true },
    });
    expect(created.status).toBe(200);
    const page = await openPage(created.body.checkoutFrontendUrl);
    expect(page.status).toBe(200);
    expect(page.html).toContain('value="Robert Levins gate 5"');
    expect(page.html).toContain('value="Ola"');
    // The default option is chosen (each option also carries the total it makes, for the page's script).
    expect(page.html).toMatch(/name="shippingOptionId" value="posten-home"[^>]* checked>/);
    expect(page.html).toContain('I want news');
    expect(page.html).toContain('https://merchant.example/terms');

    // Missing consent and a bad email: shown next to their fields, nothing paid.
    const refused = await submit('/checkout/page/pay', created.body.token, {
      ...buyer,
      email: 'nope',
      shippingOptionId: 'posten-pickup',
      walletPhone: '91234567',
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('id="email-error"');
    expect(refused.html).toContain('id="customConsent-error"');
    expect((await checkout().getSession(reference)).body.sessionState).toBe('SessionCreated');

    const paid = await submit('/checkout/page/pay', created.body.token, {
      ...buyer,
      shippingOptionId: 'posten-pickup',
      customConsent: 'yes',
      walletPhone: '91234567',
    });
    expect(paid.status).toBe(200);
    expect(paid.html).toContain('Payment approved.');
    const session = await checkout().getSession(reference);
    expect(session.body).toMatchObject({
      reference,
      sessionState: 'PaymentSuccessful',
      paymentMethod: 'Wallet',
      paymentDetails: { amount: { value: 2300, currency: 'NOK' }, state: 'AUTHORIZED', aggregate: { authorizedAmount: { value: 2300 } } },
      shippingDetails: {
        firstName: 'Ola',
        streetAddress: 'Storgata 1',
        shippingMethodId: 'posten-pickup',
        amount: { value: 300, currency: 'NOK' },
      },
      billingDetails: { email: 'ola@example.com', phoneNumber: '4791234567' },
      userInfo: { sub: expect.any(String), email: 'kari.nordmann@example.com' },
      customConsentProvided: true,
    });
    // The payment is an ordinary ePayment payment with the session's reference.
    const payment = await t.merchant.getPayment(reference);
    expect(payment.body).toMatchObject({ state: 'AUTHORIZED', amount: { value: 2300 } });
    expect((await t.merchant.modify(reference, 'capture', 2300)).status).toBe(200);
    const captured = await checkout().getSession(reference);
    expect(captured.body.paymentDetails.aggregate.capturedAmount).toEqual({ value: 2300, currency: 'NOK' });

    await eventually(() => endpoints.at('/cb-success').length === 1, 'the checkout callback');
    const [callback] = endpoints.at('/cb-success');
    expect(callback!.headers.authorization).toBe('secret-cb-1');
    expect(callback!.body).toMatchObject({ reference, sessionState: 'PaymentSuccessful', paymentDetails: { state: 'AUTHORIZED' } });
  });

  it('PaymentOnly asks no address and PaymentAndContactInfo no address either; a wrong test user leaves the session PaymentInitiated', async () => {
    const only = await checkout().createSession({ logistics: null, configuration: { elements: 'PaymentOnly' } });
    const onlyPage = await openPage(only.body.checkoutFrontendUrl);
    expect(onlyPage.html).not.toContain('name="streetAddress"');
    expect(onlyPage.html).not.toContain('name="firstName"');
    const contact = await checkout().createSession({ logistics: null, configuration: { elements: 'PaymentAndContactInfo' } });
    const contactPage = await openPage(contact.body.checkoutFrontendUrl);
    expect(contactPage.html).not.toContain('name="streetAddress"');
    expect(contactPage.html).toContain('name="firstName"');

    const reference = newSessionReference();
    const created = await checkout().createSession({
      transaction: { reference },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    const wrong = await submit('/checkout/page/pay', created.body.token, { walletPhone: '90000001' });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('No test user has that phone number');
    const initiated = await checkout().getSession(reference);
    expect(initiated.body).toMatchObject({
      sessionState: 'PaymentInitiated',
      paymentDetails: { state: 'CREATED', amount: { value: 2000 } },
    });
    expect(initiated.body.shippingDetails).toBeUndefined();
    const retry = await submit('/checkout/page/pay', created.body.token, { walletPhone: '91234567' });
    expect(retry.status).toBe(200);
    expect((await checkout().getSession(reference)).body.sessionState).toBe('PaymentSuccessful');
  });

  it('cancel ends the session PaymentTerminated and its payment ABORTED; the callback fails twice, then arrives', async () => {
    const callbackUrl = endpoints.on('/cb-flaky', (_, count) => ({ status: count <= 2 ? 500 : 204 }));
    const reference = newSessionReference();
    const created = await checkout().createSession({
      merchantInfo: { callbackUrl },
      transaction: { reference },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    await submit('/checkout/page/pay', created.body.token, { walletPhone: '90000001' });
    const cancelled = await submit('/checkout/page/cancel', created.body.token, {});
    expect(cancelled.status).toBe(200);
    const session = await checkout().getSession(reference);
    expect(session.body).toMatchObject({ sessionState: 'PaymentTerminated', paymentDetails: { state: 'TERMINATED' } });
    expect((await t.merchant.getPayment(reference)).body.state).toBe('ABORTED');
    // Retries wait on the service's clock: once an attempt's outcome is recorded, move the clock past the backoff.
    const callbackRow = async () =>
      (
        await forkEm(t.app.app.services.orm).execute<{ attempt_count: number; status: string }[]>(
          'select attempt_count, status from delivery where url = ?',
          [callbackUrl],
        )
      )[0];
    for (let attempt = 1; attempt <= 3; attempt++) {
      for (const deadline = Date.now() + 10_000; Number((await callbackRow())?.attempt_count ?? 0) < attempt;) {
        if (Date.now() > deadline) throw new Error(`callback attempt ${attempt} was not recorded`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      t.app.clock.advance(10 * 60_000);
    }
    expect(await callbackRow()).toMatchObject({ status: 'delivered' });
    const attempts = endpoints.at('/cb-flaky');
    expect(attempts).toHaveLength(3);
    expect(attempts.every((a) => a.body.sessionState === 'PaymentTerminated')).toBe(true);
    // A page of an ended session offers no more forms.
    const after = await openPage(created.body.checkoutFrontendUrl);
    expect(after.html).not.toContain('data-testid="pay"');
  });

  it('an unknown token is a 404 page; a cross-site form post is refused', async () => {
    expect((await openPage(`${t.baseUrl}/checkout/page?token=nope`)).status).toBe(404);
    const created = await checkout().createSession();
    const res = await fetch(`${t.baseUrl}/checkout/page/cancel?token=${created.body.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: '',
    });
    expect(res.status).toBe(403);
  });
});

describe('a reference taken by an ePayment payment after the session opened', () => {
  it('ends the session PaymentTerminated instead of paying a second payment', async () => {
    const reference = newSessionReference();
    const created = await checkout().createSession({
      transaction: { reference },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    expect((await t.merchant.createPayment({ reference })).status).toBe(201);
    const res = await submit('/checkout/page/pay', created.body.token, { walletPhone: '91234567' });
    expect(res.status).toBe(400);
    expect(res.html).toContain('This order can no longer be paid.');
    expect((await checkout().getSession(reference)).body).toEqual({
      sessionId: expect.any(String),
      merchantSerialNumber: '123456',
      reference,
      sessionState: 'PaymentTerminated',
    });
    expect((await t.merchant.getPayment(reference)).body.state).toBe('CREATED');
  });
});
