import { useTestApp } from '../support/app-fixture.js';
import { MERCHANT_B } from '../support/merchant-client.js';
import { CheckoutClient, newSessionReference, sessionBody } from './support/checkout-client.js';

const t = useTestApp();
const checkout = () => new CheckoutClient(t.baseUrl);

describe('POST /checkout/v3/session', () => {
  it('opens a session: token, checkoutFrontendUrl and pollingUrl; polling shows SessionCreated only', async () => {
    const reference = newSessionReference();
    const created = await checkout().createSession({ transaction: { reference } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      token: expect.any(String),
      checkoutFrontendUrl: `${t.baseUrl}/checkout/page?token=${created.body.token}`,
      pollingUrl: `${t.baseUrl}/checkout/v3/session/${reference}`,
    });
    const polled = await checkout().raw('GET', new URL(created.body.pollingUrl).pathname);
    expect(polled.status).toBe(200);
    expect(polled.body).toEqual({
      sessionId: expect.any(String),
      merchantSerialNumber: '123456',
      reference,
      sessionState: 'SessionCreated',
    });
  });

  it('refuses a reference used before by a session or by an ePayment payment: 409 in the checkout body', async () => {
    const reference = newSessionReference();
    expect((await checkout().createSession({ transaction: { reference } })).status).toBe(200);
    const again = await checkout().createSession({ transaction: { reference } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 409, errorCode: 'Session-00409', errors: { 'transaction.reference': ['Already used'] } });
    const paid = await t.merchant.authorizedPayment(1000);
    const clash = await checkout().createSession({ transaction: { reference: paid } });
    expect(clash.status).toBe(409);
  });

  it('names every refused field with Validation-00001', async () => {
    const res = await checkout().createSession({
      merchantInfo: { callbackUrl: 'http://merchant.example/cb', returnUrl: 'not a url' },
      transaction: { reference: 'short', amount: { value: 0, currency: 'NOK' }, paymentDescription: 'x' },
      logistics: {
        fixedOptions: [
          { brand: 'PORTERBUDDY', type: 'PICKUP_POINT', id: 'a', priority: -1, isDefault: true },
          { brand: 'OTHER', amount: { value: 1, currency: 'NOK' }, id: '', priority: 0, isDefault: true },
        ],
      },
      prefillCustomer: { phoneNumber: '12ab', country: 'Norway' },
      configuration: { elements: 'Everything' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, errorCode: 'Validation-00001', title: 'Bad Request' });
    expect(Object.keys(res.body.errors)).toEqual(
      expect.arrayContaining([
        'merchantInfo.returnUrl',
        'transaction.amount.value',
        'transaction.reference',
        'transaction.paymentDescription',
        'logistics.fixedOptions[0].priority',
        'logistics.fixedOptions[1].id',
        'prefillCustomer.phoneNumber',
        'prefillCustomer.country',
        'configuration.elements',
      ]),
    );
  });

  it('applies the brand rules, one default, OTHER title, and the outbound URL policy', async () => {
    const res = await checkout().createSession({
      merchantInfo: { callbackUrl: 'http://merchant.example/cb' },
      logistics: {
        dynamicOptionsCallback: 'ftp://127.0.0.1/x',
        fixedOptions: [
          { brand: 'PORTERBUDDY', type: 'PICKUP_POINT', id: 'a', priority: 0, isDefault: true },
          { brand: 'OTHER', amount: { value: 1, currency: 'NOK' }, id: 'b', priority: 0, isDefault: true },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toMatchObject({
      'logistics.fixedOptions[0].type': ['Brand PORTERBUDDY allows type HOME_DELIVERY'],
      'logistics.fixedOptions[1].title': ['Required for brand OTHER'],
      'logistics.fixedOptions': ['At most one option may be isDefault'],
    });
    const urls = await checkout().createSession({ merchantInfo: { callbackUrl: 'http://merchant.example/cb' } });
    expect(urls.status).toBe(400);
    expect(urls.body.errors['merchantInfo.callbackUrl'][0]).toMatch(/HTTPS/);
  });

  it('accepts nulls for the optional parts, and the other documented configuration', async () => {
    const res = await checkout().createSession({
      logistics: null,
      prefillCustomer: null,
      configuration: {
        elements: 'PaymentOnly',
        customerInteraction: 'CUSTOMER_PRESENT',
        userFlow: 'WEB_REDIRECT',
        requireUserInfo: true,
        customConsent: { text: 'Send me [news](https://merchant.example/news)', required: false },
        showOrderSummary: true,
      },
    });
    expect(res.status).toBe(200);
  });

  it("wrong client_id or client_secret: 401; another merchant's MSN: 403; malformed MSN: 400", async () => {
    const wrong = await checkout().raw('POST', '/checkout/v3/session', sessionBody(), checkout().headers({ client_secret: 'nope' }));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ status: 401, errorCode: expect.any(String), errors: expect.any(Object) });
    const missing = await checkout().raw('GET', '/checkout/v3/session/abcdefgh', undefined, { 'Merchant-Serial-Number': '123456' });
    expect(missing.status).toBe(401);
    const other = await checkout().raw(
      'POST',
      '/checkout/v3/session',
      sessionBody(),
      checkout().headers({ 'Merchant-Serial-Number': '654321' }),
    );
    expect(other.status).toBe(403);
    const bad = await checkout().raw('POST', '/checkout/v3/session', sessionBody(), checkout().headers({ 'Merchant-Serial-Number': 'x' }));
    expect(bad.status).toBe(400);
  });
});

describe('GET /checkout/v3/session/{reference}', () => {
  it("another merchant's session is indistinguishable from a missing one: 404 Session-00100", async () => {
    const reference = newSessionReference();
    expect((await checkout().createSession({ transaction: { reference } })).status).toBe(200);
    const other = await new CheckoutClient(t.baseUrl, MERCHANT_B).getSession(reference);
    const missing = await checkout().getSession(newSessionReference());
    for (const res of [other, missing]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: 404, errorCode: 'Session-00100', detail: 'Session expired or not known' });
    }
  });
});
