import { expireDueSessions } from '../../src/checkout/checkout-session-expiry.job.js';
import { useTestApp } from '../support/app-fixture.js';
import { eventually } from '../support/subscriber.js';
import { CheckoutClient, newSessionReference } from './support/checkout-client.js';
import { MerchantEndpoints } from './support/merchant-endpoints.js';

const t = useTestApp();
const endpoints = new MerchantEndpoints();
beforeAll(() => endpoints.start());
afterAll(() => endpoints.stop());
const checkout = () => new CheckoutClient(t.baseUrl);

async function pay(token: string, walletPhone: string) {
  return fetch(`${t.baseUrl}/checkout/page/pay?token=${encodeURIComponent(token)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.baseUrl },
    body: new URLSearchParams({ walletPhone }).toString(),
  });
}

describe('checkout session expiry', () => {
  it('a session left for an hour is SessionExpired, once, with the merchant callback; the page no longer pays', async () => {
    const callbackUrl = endpoints.on('/cb-expired', () => ({ status: 200 }));
    const reference = newSessionReference();
    const created = await checkout().createSession({
      merchantInfo: { callbackUrl },
      transaction: { reference },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    t.app.clock.advance(59 * 60_000);
    await expireDueSessions(t.app.app.services);
    expect((await checkout().getSession(reference)).body.sessionState).toBe('SessionCreated');
    t.app.clock.advance(60_000);
    await eventually(() => endpoints.at('/cb-expired').length === 1, 'the expiry callback');
    const expired = await checkout().getSession(reference);
    expect(expired.body).toEqual({
      sessionId: expect.any(String),
      merchantSerialNumber: '123456',
      reference,
      sessionState: 'SessionExpired',
    });
    expect(endpoints.at('/cb-expired')[0]!.body).toMatchObject({ reference, sessionState: 'SessionExpired' });
    expect(await expireDueSessions(t.app.app.services)).toBe(0);
    const res = await pay(created.body.token, '91234567');
    expect(res.status).toBe(400);
    expect(endpoints.at('/cb-expired')).toHaveLength(1);
  });

  it('a PaymentInitiated session whose payment expired (10 minutes) ends PaymentTerminated; one force-approved over ePayment ends PaymentSuccessful', async () => {
    const first = newSessionReference();
    const a = await checkout().createSession({
      transaction: { reference: first },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    await pay(a.body.token, '90000001');
    const second = newSessionReference();
    const b = await checkout().createSession({
      transaction: { reference: second },
      logistics: null,
      configuration: { elements: 'PaymentOnly' },
    });
    await pay(b.body.token, '90000001');
    expect((await checkout().getSession(second)).body.sessionState).toBe('PaymentInitiated');
    expect((await t.merchant.forceApprove(second)).status).toBe(200);
    t.app.clock.advance(11 * 60_000);
    for (const [reference, state] of [
      [first, 'PaymentTerminated'],
      [second, 'PaymentSuccessful'],
    ] as const) {
      let last = '';
      const deadline = Date.now() + 10_000;
      while (last !== state && Date.now() < deadline) {
        last = (await checkout().getSession(reference)).body.sessionState;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(last).toBe(state);
    }
  });
});
