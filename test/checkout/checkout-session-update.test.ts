import { forkEm } from '../../src/platform/db/orm.js';
import { formatAmount } from '../../src/pages/kit/money-format.js';
import { useTestApp } from '../support/app-fixture.js';
import { MERCHANT_B } from '../support/merchant-client.js';
import { eventually } from '../support/subscriber.js';
import { CheckoutClient, newSessionReference, submitCheckoutPage } from './support/checkout-client.js';
import { MerchantEndpoints } from './support/merchant-endpoints.js';

// issue 19 point 4: session update and expiry, as the WooCommerce plugin (6.0.5) calls them.
const t = useTestApp();
const endpoints = new MerchantEndpoints();
beforeAll(() => endpoints.start());
afterAll(() => endpoints.stop());
const checkout = () => new CheckoutClient(t.baseUrl);

/** The headers `VippsApi::get_headers` sends, plus the checkout pair (`checkout_modify_session`). */
function wooHeaders(client = checkout()): Record<string, string> {
  return client.headers({
    Authorization: 'Bearer unused-by-checkout',
    'X-TimeStamp': new Date().toISOString(),
    'X-Source-Address': '127.0.0.1',
    'Vipps-System-Name': 'woocommerce',
    'Vipps-System-Version': '6.8/10.2',
    'Vipps-System-Plugin-Name': 'woo-vipps',
    'Vipps-System-Plugin-Version': '6.0.5',
  });
}

/** The body `checkout_modify_session` builds: amount, description, order summary, and the recalculated shipping. */
const wooUpdate = {
  transaction: {
    amount: { value: 12_500, currency: 'NOK' },
    paymentDescription: 'Confirm your order from https://shop.example',
    orderSummary: {
      orderLines: [
        {
          name: 'Socks',
          id: '17',
          totalAmount: 12_500,
          totalAmountExcludingTax: 10_000,
          totalTaxAmount: 2_500,
          taxPercentage: 25,
          unitInfo: { unitPrice: 12_500, quantity: '1', quantityUnit: 'PCS' },
          discount: 0,
          productUrl: 'https://shop.example/socks',
          isShipping: false,
        },
      ],
      orderBottomLine: { currency: 'NOK', tipAmount: 0, giftCardAmount: 0, terminalId: 'woocommerce' },
    },
  },
  logisticOptions: [
    { brand: 'POSTEN', amount: { value: 0, currency: 'NOK' }, id: 'free_shipping:3', priority: 0, isDefault: true, description: 'Free' },
  ],
};

async function openPage(url: string): Promise<string> {
  return (await fetch(url)).text();
}
const pay = (token: string, fields: Record<string, string>) => submitCheckoutPage(t.baseUrl, '/checkout/page/pay', token, fields);
const buyer = {
  firstName: 'Ola',
  lastName: 'Nordmann',
  email: 'ola@example.com',
  phoneNumber: '+4791234567',
  streetAddress: 'Storgata 1',
  postalCode: '0155',
  city: 'Oslo',
  country: 'NO',
  terms: 'on',
};

async function eventNames(reference: string): Promise<string[]> {
  const rows = await forkEm(t.app.app.services.orm).execute<{ name: string }[]>(
    `select e.name from domain_event e join checkout_session s on s.id = e.stream_id
     where e.stream_type = 'checkout-session' and s.reference = ? order by e.id`,
    [reference],
  );
  return rows.map((r) => r.name);
}

describe('PATCH /checkout/v3/session/{reference}', () => {
  it('replaces amount, description, order summary and shipping options before the buyer pays; the payment uses them', async () => {
    const reference = newSessionReference();
    const created = await checkout().createSession({ transaction: { reference }, configuration: { showOrderSummary: true } });
    expect(created.status).toBe(200);
    const updated = await checkout().raw('PATCH', `/checkout/v3/session/${reference}`, wooUpdate, wooHeaders());
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ reference, sessionState: 'SessionCreated' });

    const page = await openPage(created.body.checkoutFrontendUrl);
    expect(page).toContain('Confirm your order from https://shop.example');
    expect(page).toContain('name="shippingOptionId" value="free_shipping:3"');
    expect(page).not.toContain('value="posten-home"');
    expect(page).toContain('Socks');

    const paid = await pay(created.body.token, { ...buyer, shippingOptionId: 'free_shipping:3', walletPhone: '91234567' });
    expect(paid.status).toBe(200);
    const session = await checkout().getSession(reference);
    expect(session.body).toMatchObject({
      sessionState: 'PaymentSuccessful',
      paymentDetails: { amount: { value: 12_500, currency: 'NOK' }, state: 'AUTHORIZED' },
      shippingDetails: { shippingMethodId: 'free_shipping:3', amount: { value: 0 } },
    });
    expect(await eventNames(reference)).toEqual([
      'checkout.session.SessionCreated.v1',
      'checkout.session.updated.v1',
      'checkout.session.PaymentInitiated.v1',
      'checkout.session.PaymentSuccessful.v1',
    ]);

    // Paid: the session can no longer be changed.
    const late = await checkout().raw('PATCH', `/checkout/v3/session/${reference}`, wooUpdate, wooHeaders());
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ status: 409, errorCode: 'Session-00410' });
  });

  it("refuses another currency, a bad option and an empty change (400), another merchant's or an unknown session (404)", async () => {
    const reference = newSessionReference();
    await checkout().createSession({ transaction: { reference } });
    const currency = await checkout().raw('PATCH', `/checkout/v3/session/${reference}`, {
      transaction: { amount: { value: 1000, currency: 'EUR' } },
    });
    expect(currency.status).toBe(400);
    expect(currency.body).toMatchObject({ errorCode: 'Validation-00001', errors: { 'transaction.amount.currency': expect.any(Array) } });
    const option = await checkout().raw('PATCH', `/checkout/v3/session/${reference}`, {
      logisticOptions: [{ brand: 'OTHER', amount: { value: 1, currency: 'NOK' }, id: 'x', priority: 0, isDefault: true }],
    });
    expect(option.status).toBe(400);
    expect(option.body.errors).toHaveProperty(['logisticOptions[0].title']);
    expect((await checkout().raw('PATCH', `/checkout/v3/session/${reference}`, {})).status).toBe(400);
    const theirs = await new CheckoutClient(t.baseUrl, MERCHANT_B).raw('PATCH', `/checkout/v3/session/${reference}`, wooUpdate);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ errorCode: 'Session-00100' });
    expect((await checkout().raw('PATCH', `/checkout/v3/session/${newSessionReference()}`, wooUpdate)).status).toBe(404);
    expect(await eventNames(reference)).toEqual(['checkout.session.SessionCreated.v1']);
  });
});

// issue 33 N9: the merchant changed the amount while the buyer had the page open; the buyer's click must not approve
// an amount the page never showed.
describe('a PATCH between the page and its Pay', () => {
  const versionOn = (page: string) => /name="priceVersion" value="([^"]+)"/.exec(page)?.[1];

  it('refuses the Pay the old page sends, saying the amount changed and showing the new one; nothing is charged', async () => {
    const reference = newSessionReference();
    const created = await checkout().createSession({
      transaction: { reference, amount: { value: 2_000, currency: 'NOK' } },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    expect(created.status).toBe(200);
    const shown = await openPage(created.body.checkoutFrontendUrl);
    expect(shown).toContain(formatAmount(2_000, 'NOK'));
    const shownVersion = versionOn(shown);
    expect(shownVersion).toBeDefined();

    const patched = await checkout().raw('PATCH', `/checkout/v3/session/${reference}`, {
      transaction: { amount: { value: 99_900, currency: 'NOK' } },
    });
    expect(patched.status).toBe(200);

    const refused = await pay(created.body.token, { walletPhone: '91234567', priceVersion: shownVersion! });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('The shop changed the amount while this page was open');
    expect(refused.html).toContain(`You now pay ${formatAmount(99_900, 'NOK')}`);
    // Nothing was charged: no payment for the reference, the session still open for the buyer, at the new amount.
    expect((await t.merchant.getPayment(reference)).status).toBe(404);
    const open = await checkout().getSession(reference);
    expect(open.body.sessionState).toBe('SessionCreated');
    expect(open.body.paymentDetails).toBeUndefined();
    expect(await eventNames(reference)).toEqual(['checkout.session.SessionCreated.v1', 'checkout.session.updated.v1']);

    // The page the refusal shows carries the new version: paying from it approves the amount it showed.
    const newVersion = versionOn(refused.html);
    expect(newVersion).toBeDefined();
    expect(newVersion).not.toBe(shownVersion);
    expect(versionOn(await openPage(created.body.checkoutFrontendUrl))).toBe(newVersion);
    const paid = await pay(created.body.token, { walletPhone: '91234567', priceVersion: newVersion! });
    expect(paid.status).toBe(200);
    expect((await checkout().getSession(reference)).body).toMatchObject({
      sessionState: 'PaymentSuccessful',
      paymentDetails: { amount: { value: 99_900, currency: 'NOK' }, state: 'AUTHORIZED' },
    });
  });

  it('a change of the shipping prices alone is a change too; one of the description alone is not', async () => {
    const reference = newSessionReference();
    const created = await checkout().createSession({ transaction: { reference } });
    const shownVersion = versionOn(await openPage(created.body.checkoutFrontendUrl));
    const described = await checkout().raw('PATCH', `/checkout/v3/session/${reference}`, {
      transaction: { paymentDescription: 'Same price, new words' },
    });
    expect(described.status).toBe(200);
    expect(versionOn(await openPage(created.body.checkoutFrontendUrl))).toBe(shownVersion);
    const shipping = await checkout().raw('PATCH', `/checkout/v3/session/${reference}`, { logisticOptions: wooUpdate.logisticOptions });
    expect(shipping.status).toBe(200);
    expect(versionOn(await openPage(created.body.checkoutFrontendUrl))).not.toBe(shownVersion);
    const refused = await pay(created.body.token, {
      ...buyer,
      shippingOptionId: 'free_shipping:3',
      walletPhone: '91234567',
      priceVersion: shownVersion!,
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('The shop changed the amount while this page was open');
    expect((await t.merchant.getPayment(reference)).status).toBe(404);
  });
});

describe('POST /checkout/v3/session/{reference}/expire', () => {
  it('expires an open session with its event and callback, as the plugin sends it (a JSON `[]` body); again is the same answer', async () => {
    const callbackUrl = endpoints.on('/cb-expire', () => ({ status: 200 }));
    const reference = newSessionReference();
    const created = await checkout().createSession({ transaction: { reference }, merchantInfo: { callbackUrl } });
    const expired = await checkout().raw('POST', `/checkout/v3/session/${reference}/expire`, '[]', wooHeaders());
    expect(expired.status).toBe(200);
    expect(expired.body).toMatchObject({ reference, sessionState: 'SessionExpired' });
    expect((await checkout().getSession(reference)).body.sessionState).toBe('SessionExpired');
    await eventually(() => endpoints.at('/cb-expire').length === 1, 'the checkout callback');
    expect(endpoints.at('/cb-expire')[0]!.body).toMatchObject({ reference, sessionState: 'SessionExpired' });

    const again = await checkout().raw('POST', `/checkout/v3/session/${reference}/expire`, '[]', wooHeaders());
    expect(again.status).toBe(200);
    expect(await eventNames(reference)).toEqual(['checkout.session.SessionCreated.v1', 'checkout.session.SessionExpired.v1']);

    const page = await openPage(created.body.checkoutFrontendUrl);
    expect(page).toContain('<h1 data-testid="heading">Checkout expired</h1>');
    expect(page).not.toContain('name="walletPhone"');
    const late = await pay(created.body.token, { ...buyer, shippingOptionId: 'posten-home', walletPhone: '91234567' });
    expect(late.status).toBe(400);
  });

  it('expires the payment still waiting for the buyer with it; a paid session is 409; no body at all works too', async () => {
    const reference = newSessionReference();
    const created = await checkout().createSession({
      transaction: { reference },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    // A wrong test user leaves the session PaymentInitiated with its payment CREATED.
    expect((await pay(created.body.token, { walletPhone: '90000001' })).status).toBe(400);
    const expired = await checkout().raw('POST', `/checkout/v3/session/${reference}/expire`, undefined);
    expect(expired.status).toBe(200);
    expect(expired.body).toMatchObject({ sessionState: 'SessionExpired', paymentDetails: { state: 'TERMINATED' } });
    expect((await t.merchant.getPayment(reference)).body.state).toBe('EXPIRED');

    const paidRef = newSessionReference();
    const paid = await checkout().createSession({
      transaction: { reference: paidRef },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    expect((await pay(paid.body.token, { walletPhone: '91234567' })).status).toBe(200);
    const refused = await checkout().raw('POST', `/checkout/v3/session/${paidRef}/expire`, '[]');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ errorCode: 'Session-00410' });
    expect((await t.merchant.getPayment(paidRef)).body.state).toBe('AUTHORIZED');
    const theirs = await new CheckoutClient(t.baseUrl, MERCHANT_B).raw('POST', `/checkout/v3/session/${reference}/expire`, '[]');
    expect(theirs.status).toBe(404);
  });
});

describe('the graph: updateCheckoutSession and expireCheckoutSession', () => {
  const UPDATE = `mutation($input: UpdateCheckoutSessionInput!) { updateCheckoutSession(input: $input) {
    session { reference sessionState amount { value currency } paymentDescription } userErrors { code field message } } }`;
  const EXPIRE = `mutation($input: ExpireCheckoutSessionInput!) { expireCheckoutSession(input: $input) {
    session { reference sessionState } userErrors { code field message } } }`;

  it('the same rules as REST, refusals as userErrors', async () => {
    const reference = newSessionReference();
    await checkout().createSession({ transaction: { reference } });
    const updated = await t.merchant.graphql(UPDATE, {
      input: { reference, transaction: { amount: { value: 3000, currency: 'NOK' }, paymentDescription: 'Two pairs' } },
    });
    expect(updated.body.data.updateCheckoutSession).toEqual({
      session: { reference, sessionState: 'SessionCreated', amount: { value: 3000, currency: 'NOK' }, paymentDescription: 'Two pairs' },
      userErrors: [],
    });
    const euro = await t.merchant.graphql(UPDATE, { input: { reference, transaction: { amount: { value: 3000, currency: 'EUR' } } } });
    expect(euro.body.data.updateCheckoutSession.userErrors).toEqual([
      { code: 'VALIDATION_FAILED', field: 'transaction.amount.currency', message: expect.any(String) },
    ]);
    const theirs = await t.otherMerchant.graphql(EXPIRE, { input: { reference } });
    expect(theirs.body.data.expireCheckoutSession.userErrors).toEqual([expect.objectContaining({ code: 'CHECKOUT_SESSION_NOT_FOUND' })]);
    const expired = await t.merchant.graphql(EXPIRE, { input: { reference } });
    expect(expired.body.data.expireCheckoutSession).toEqual({ session: { reference, sessionState: 'SessionExpired' }, userErrors: [] });
    const late = await t.merchant.graphql(UPDATE, { input: { reference, transaction: { paymentDescription: 'Too late' } } });
    expect(late.body.data.updateCheckoutSession.userErrors).toEqual([expect.objectContaining({ code: 'CHECKOUT_SESSION_NOT_MODIFIABLE' })]);
    expect(await eventNames(reference)).toEqual([
      'checkout.session.SessionCreated.v1',
      'checkout.session.updated.v1',
      'checkout.session.SessionExpired.v1',
    ]);
  });
});
