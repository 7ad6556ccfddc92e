import { useTestApp } from '../support/app-fixture.js';
import { CheckoutClient, newSessionReference } from './support/checkout-client.js';
import { MerchantEndpoints } from './support/merchant-endpoints.js';
import { DYNAMIC_SHIPPING_OPTIONS } from './support/shipping-options.js';

const t = useTestApp();
const endpoints = new MerchantEndpoints();
const SHORTENED_TIMEOUT_MS = 1_500;
beforeAll(() => endpoints.start());
afterAll(() => endpoints.stop());
const checkout = () => new CheckoutClient(t.baseUrl);

async function submit(path: string, token: string, fields: Record<string, string>) {
  const res = await fetch(`${t.baseUrl}${path}?token=${encodeURIComponent(token)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.baseUrl },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, html: await res.text() };
}
const address = { streetAddress: 'Karl Johans gate 1', postalCode: '0154', city: 'Oslo', country: 'NO' };
const contact = { firstName: 'Kari', lastName: 'Nordmann', email: 'kari@example.com', phoneNumber: '4791234567' };

async function sessionWith(dynamicPath: string | null, withFixed = true) {
  const reference = newSessionReference();
  const fixedOptions = [{ brand: 'POSTEN', amount: { value: 5000, currency: 'NOK' }, id: 'posten-home', priority: 1, isDefault: true }];
  const created = await checkout().createSession({
    transaction: { reference },
    logistics: { ...(dynamicPath ? { dynamicOptionsCallback: endpoints.url(dynamicPath) } : {}), ...(withFixed ? { fixedOptions } : {}) },
  });
  expect(created.status).toBe(200);
  return { reference, token: created.body.token as string };
}

describe('dynamic shipping', () => {
  it('asks the merchant for options with the address and offers them over the fixed ones; the chosen one is in shippingDetails', async () => {
    endpoints.on('/dyn-good', () => ({ status: 200, body: DYNAMIC_SHIPPING_OPTIONS }));
    const { reference, token } = await sessionWith('/dyn-good');
    const offered = await submit('/checkout/page/shipping', token, { ...contact, ...address });
    expect(offered.status).toBe(200);
    expect(offered.html).toContain('data-source="dynamic"');
    expect(offered.html).toContain('Bike courier');
    expect(offered.html).not.toContain('value="posten-home"');
    expect(offered.html).not.toContain('The shop sent no delivery options');
    expect(endpoints.at('/dyn-good').at(-1)!.body).toEqual({
      streetAddress: 'Karl Johans gate 1',
      postalCode: '0154',
      region: 'Oslo',
      country: 'NO',
    });
    const paid = await submit('/checkout/page/pay', token, {
      ...contact,
      ...address,
      shippingOptionId: 'pn-pickup',
      walletPhone: '91234567',
    });
    expect(paid.status).toBe(200);
    const session = await checkout().getSession(reference);
    expect(session.body).toMatchObject({
      sessionState: 'PaymentSuccessful',
      shippingDetails: { shippingMethodId: 'pn-pickup', amount: { value: 4900, currency: 'NOK' }, streetAddress: 'Karl Johans gate 1' },
      paymentDetails: { amount: { value: 6900 } },
    });
  });

  it('falls back to the fixed options on an empty list, a non-2xx answer, something invalid, or no answer in time', async () => {
    endpoints.on('/dyn-empty', () => ({ status: 200, body: [] }));
    endpoints.on('/dyn-500', () => ({ status: 500, body: DYNAMIC_SHIPPING_OPTIONS }));
    endpoints.on('/dyn-invalid', () => ({
      status: 200,
      body: [{ brand: 'POSTEN', type: 'TELEPORT', id: 'x', priority: 0, isDefault: true }],
    }));
    endpoints.on('/dyn-null', () => ({ status: 200, body: null }));
    endpoints.on('/dyn-slow', () => ({ hang: SHORTENED_TIMEOUT_MS * 3 }));
    // The 8 seconds of the public definition (PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS), shortened for this test so a receiver that hangs does not hold it up (and
    // only here: an answer on its way on a busy machine must not time out in the other tests).
    t.app.app.services.config.shippingCallbackTimeoutMs = SHORTENED_TIMEOUT_MS;
    try {
      for (const path of ['/dyn-empty', '/dyn-500', '/dyn-invalid', '/dyn-null', '/dyn-slow']) {
        const { token } = await sessionWith(path);
        const offered = await submit('/checkout/page/shipping', token, { ...contact, ...address });
        expect(offered.status).toBe(200);
        expect(offered.html).toContain('data-source="fixed"');
        expect(offered.html).toContain('The shop sent no delivery options for this address, so its standard options are shown.');
        expect(offered.html).toContain('value="posten-home"');
        expect(endpoints.at(path).length).toBeGreaterThan(0);
      }
    } finally {
      t.app.app.services.config.shippingCallbackTimeoutMs = 8_000;
    }
  });

  it('without fixed options, a failed callback leaves the buyer an error and no way to pay', async () => {
    endpoints.on('/dyn-empty-only', () => ({ status: 200, body: [] }));
    const { reference, token } = await sessionWith('/dyn-empty-only', false);
    const offered = await submit('/checkout/page/shipping', token, { ...contact, ...address });
    expect(offered.status).toBe(400);
    expect(offered.html).toContain('No shipping options are available');
    const paid = await submit('/checkout/page/pay', token, { ...contact, ...address, walletPhone: '91234567' });
    expect(paid.status).toBe(400);
    expect((await checkout().getSession(reference)).body.sessionState).toBe('SessionCreated');
  });
});
