import { waitForStateChange, type LiveReading } from '../../src/platform/events/wait-for-state.js';
import type { OutboxEvent } from '../../src/platform/events/outbox-event.js';
import { PAYMENT_STREAM } from '../../src/payments/payment-event.types.js';
import { readLandingLiveState } from '../../src/wallet/landing.service.js';
import { MERCHANT_A, MerchantClient, newReference } from '../support/merchant-client.js';
import { eventually } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CheckoutClient } from '../checkout/support/checkout-client.js';
import { formatAmount } from '../../src/pages/kit/money-format.js';
import { PspEndpoint } from '../psp/psp-endpoint.js';
import { newIds, testPspClient } from '../psp/psp-fixture.js';

// issue 14: the wallet pages' shown state follows their payment or session live, over one long-poll mechanism.
let t: TestApp;
let merchant: MerchantClient;
let checkout: CheckoutClient;
let endpoint: PspEndpoint;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  checkout = new CheckoutClient(t.baseUrl);
  endpoint = await new PspEndpoint().start();
});
afterAll(async () => {
  await endpoint?.close();
  await t?.close();
});

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

async function ePayment(): Promise<{ reference: string; token: string }> {
  const reference = newReference('live');
  const res = await merchant.createPayment({ reference });
  expect(res.status).toBe(201);
  return { reference, token: tokenOf(res.body.redirectUrl) };
}

async function pspPayment(): Promise<{ token: string }> {
  const psp = testPspClient(t);
  const ids = newIds();
  const res = await psp.request(
    'POST',
    '/psp/v3/psppayments/init',
    { ...ids, amount: 10_000, currency: 'NOK', pspRedirectUrl: 'https://psp.example/return', makePaymentUrl: endpoint.url('/live') },
    psp.msnHeaders,
  );
  expect(res.status).toBe(200);
  return { token: tokenOf(res.body.vippsRedirectUrl) };
}

async function checkoutSession(): Promise<{ token: string; reference: string }> {
  const res = await checkout.createSession();
  expect(res.status).toBe(200);
  return { token: res.body.token, reference: new URL(res.body.pollingUrl).pathname.split('/').pop()! };
}

/**
 * The default session's order (kr 20) and the shipping its page selects (its default option, Posten at kr 50): while
 * the buyer may pay, the amount shown is the order with that shipping, what Pay charges (issue 35); once the session
 * ended unpaid, the order's.
 */
const ORDER = 2000;
const WITH_DEFAULT_SHIPPING = ORDER + 5000;

/** A checkout page's answer: its state and amount, and the key the page sends back (issue 19: the merchant may change the amount). */
function checkoutLive(state: string, awaitsUser: boolean, settled: boolean, minorUnits: number) {
  const shownAmount = formatAmount(minorUnits, 'NOK');
  return { state, awaitsUser, settled, shownAmount, key: `${state} ${shownAmount}` };
}

/** A page's form post (same origin), as the page itself would send it. */
function post(path: string, form: Record<string, string>, headers: Record<string, string> = { origin: t.baseUrl }): Promise<Response> {
  return fetch(t.baseUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** Resolves once the server holds one more subscription to the event bus than `before`: a state request is waiting. */
async function waitingOn(before: number): Promise<void> {
  await eventually(() => t.app.services.events.subscriberCount > before, 'the state request to wait on its stream');
}

describe.each([
  {
    page: 'the ePayment landing page',
    route: '/wallet/landing/state',
    open: async () => {
      const { reference, token } = await ePayment();
      return { token, change: async () => expect((await merchant.forceApprove(reference)).status).toBe(200) };
    },
    before: { state: 'CREATED', awaitsUser: true, settled: false, key: 'CREATED' },
    after: { state: 'AUTHORIZED', awaitsUser: false, settled: true, key: 'AUTHORIZED' },
  },
  {
    page: 'the PSP landing page',
    route: '/wallet/psp/state',
    open: async () => {
      const { token } = await pspPayment();
      return {
        token,
        change: async () => expect((await post(`/wallet/psp/cancel?token=${encodeURIComponent(token)}`, {})).status).toBe(200),
      };
    },
    before: { state: 'INITIATED', awaitsUser: true, settled: false, key: 'INITIATED' },
    after: { state: 'USER_CANCEL', awaitsUser: false, settled: true, key: 'USER_CANCEL' },
  },
  {
    page: 'the checkout page',
    route: '/checkout/page/state',
    open: async () => {
      const { token } = await checkoutSession();
      return {
        token,
        change: async () => expect((await post(`/checkout/page/cancel?token=${encodeURIComponent(token)}`, {})).status).toBe(200),
      };
    },
    before: checkoutLive('SessionCreated', true, false, WITH_DEFAULT_SHIPPING),
    after: checkoutLive('PaymentTerminated', false, true, ORDER),
  },
  {
    page: 'the checkout page, updated by the merchant',
    route: '/checkout/page/state',
    open: async () => {
      const { token, reference } = await checkoutSession();
      const update = { transaction: { amount: { value: 4550, currency: 'NOK' } } };
      return {
        token,
        change: async () => expect((await checkout.raw('PATCH', `/checkout/v3/session/${reference}`, update)).status).toBe(200),
      };
    },
    before: checkoutLive('SessionCreated', true, false, WITH_DEFAULT_SHIPPING),
    after: checkoutLive('SessionCreated', true, false, 4550 + 5000),
  },
  {
    page: 'the checkout page, expired by the merchant',
    route: '/checkout/page/state',
    open: async () => {
      const { token, reference } = await checkoutSession();
      return {
        token,
        change: async () => expect((await checkout.raw('POST', `/checkout/v3/session/${reference}/expire`, '[]')).status).toBe(200),
      };
    },
    before: checkoutLive('SessionCreated', true, false, WITH_DEFAULT_SHIPPING),
    after: checkoutLive('SessionExpired', false, true, ORDER),
  },
])('the state route of $page', ({ route, open, before, after }) => {
  test('answers at once when the state differs from the one the page shows', async () => {
    const { token } = await open();
    const res = await post(route, { token, state: 'SOMETHING ELSE' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual(before);
  });

  test('waits while the state is the one the page shows, and answers the change made elsewhere', async () => {
    const { token, change } = await open();
    const subscribers = t.app.services.events.subscriberCount;
    let answered = false;
    const waiting = post(route, { token, state: before.key }).then((res) => {
      answered = true;
      return res;
    });
    await waitingOn(subscribers);
    expect(answered).toBe(false);
    await change();
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(after);
    // The request let go of its subscription.
    expect(t.app.services.events.subscriberCount).toBe(subscribers);
    // Asked with another state, the page is answered at once with the one it should show.
    expect(await (await post(route, { token, state: 'SOMETHING ELSE' })).json()).toEqual(after);
  });

  test('refuses a token that names nothing, a missing token, and a request from another origin', async () => {
    const unknown = await post(route, { token: 'not-a-token', state: before.state });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 404 });
    expect((await post(route, { state: before.state })).status).toBe(400);
    const { token } = await open();
    const foreign = await post(route, { token, state: before.state }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    // The token in the query (where a page's URL has it) is not read: the state route takes it from the body only.
    expect((await post(`${route}?token=${encodeURIComponent(token)}`, { state: before.state })).status).toBe(400);
  });
});

describe('the wait (waitForStateChange)', () => {
  const services = () => t.app.services;

  /** The landing payment's reading, counting the reads. */
  function counted(token: string): { read: () => Promise<LiveReading | undefined>; reads: () => number } {
    let reads = 0;
    return {
      read: () => {
        reads += 1;
        return readLandingLiveState(services(), token);
      },
      reads: () => reads,
    };
  }

  /** An ePayment whose CREATED event the bus has already passed on, so that event cannot stir a wait begun after. */
  async function ePaymentHeard(): Promise<{ reference: string; token: string }> {
    const heard: OutboxEvent[] = [];
    const unsubscribe = services().events.subscribe({ msn: MERCHANT_A.msn, streamType: PAYMENT_STREAM }, (e) => heard.push(e));
    try {
      const { reference, token } = await ePayment();
      await eventually(() => heard.some((e) => e.payload.reference === reference), 'the payment’s CREATED event on the bus');
      return { reference, token };
    } finally {
      unsubscribe();
    }
  }

  test('is bounded: unchanged after its time, the state read last comes back and the subscription is gone', async () => {
    const { token } = await ePaymentHeard();
    const subscribers = services().events.subscriberCount;
    const { read, reads } = counted(token);
    expect(await waitForStateChange(services().events, read, 'CREATED', { waitMs: 50 })).toEqual({
      state: 'CREATED',
      awaitsUser: true,
      settled: false,
    });
    // Once to find the stream, once subscribed; nothing woke it in between.
    expect(reads()).toBe(2);
    expect(services().events.subscriberCount).toBe(subscribers);
  });

  test('gives up when its request is aborted (the page left), and lets go of its subscription', async () => {
    const { token } = await ePayment();
    const subscribers = services().events.subscriberCount;
    const gone = new AbortController();
    const waiting = waitForStateChange(services().events, counted(token).read, 'CREATED', { signal: gone.signal });
    await waitingOn(subscribers);
    gone.abort();
    expect(await waiting).toBeUndefined();
    expect(services().events.subscriberCount).toBe(subscribers);
  });

  test('is woken by its own payment only: another payment of the same sales unit does not read it again', async () => {
    // Its own CREATED event heard before the wait begins: on a loaded machine the bus may pass it on late, and it
    // would then stir the wait (a read more), which is right, but not what this counts.
    const mine = await ePaymentHeard();
    const other = await ePayment();
    const subscribers = services().events.subscriberCount;
    const { read, reads } = counted(mine.token);
    const waiting = waitForStateChange(services().events, read, 'CREATED');
    await waitingOn(subscribers);
    // A second listener on the same sales unit's payments, subscribed after the wait: once it has heard the other
    // payment's event, the wait has been handed that event too.
    const heard: OutboxEvent[] = [];
    const unsubscribe = services().events.subscribe({ msn: MERCHANT_A.msn, streamType: PAYMENT_STREAM }, (e) => heard.push(e));
    try {
      expect((await merchant.forceApprove(other.reference)).status).toBe(200);
      await eventually(() => heard.length > 0, 'the other payment’s event');
      await new Promise((resolve) => setImmediate(resolve));
      expect(reads()).toBe(2);
      expect((await merchant.forceApprove(mine.reference)).status).toBe(200);
      expect(await waiting).toEqual({ state: 'AUTHORIZED', awaitsUser: false, settled: true });
      expect(reads()).toBe(3);
    } finally {
      unsubscribe();
    }
  });
});
