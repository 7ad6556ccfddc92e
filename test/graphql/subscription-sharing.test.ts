import { Subscriber, eventually } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { newIds, testPspClient } from '../psp/psp-fixture.js';

// Subscribers holding the same operation share each event's execution, by the event's id: the PSP stream makes a new
// object of each event for every subscriber, and each of them executed and serialized every event again (issue 32).
// Counted by the service's own metrics.
let t: TestApp;
let psp: ReturnType<typeof testPspClient>;

beforeAll(async () => {
  t = await startTestApp();
  psp = testPspClient(t);
});
afterAll(() => t.close());

const metric = async (name: string) => (await t.app.metrics.registry.getSingleMetric(name)!.get()).values[0]!.value;
const fanOut = async () => ({
  executions: await metric('paygraph_subscription_executions_total'),
  notifications: await metric('paygraph_subscription_notifications_total'),
});

const CHANGES = 'subscription { pspPaymentChanges { eventName pspPayment { pspTransactionId state } } }';
const NAMES_ONLY = 'subscription { pspPaymentChanges { eventName } }';

test('two PSP subscribers of one operation share one execution per event; another operation has its own', async () => {
  const { 'Content-Type': _type, ...params } = await psp.headers(psp.msnHeaders);
  const subscribers = [CHANGES, CHANGES, NAMES_ONLY].map((document) => new Subscriber(t.baseUrl, params).subscribe(document));
  try {
    await eventually(() => t.app.services.events.subscriberCount === 3, 'the three subscriptions');
    const before = await fanOut();
    const ids = newIds();
    const init = await psp.request(
      'POST',
      '/psp/v3/psppayments/init',
      {
        ...ids,
        amount: 12_300,
        currency: 'NOK',
        pspRedirectUrl: 'https://psp.example/return',
        makePaymentUrl: 'https://psp.example/make-payment',
        makePaymentToken: 'psp-secret',
        paymentText: 'Ordre 1',
      },
      psp.msnHeaders,
    );
    expect(init.status).toBe(200);
    const [first, second, names] = await Promise.all(subscribers.map((subscriber) => subscriber.waitFor(1)));
    const change = { eventName: 'psp.payment.initiated.v1', pspPayment: { pspTransactionId: ids.pspTransactionId, state: 'INITIATED' } };
    expect(first![0]!.data).toEqual({ pspPaymentChanges: change });
    expect(second![0]!.data).toEqual({ pspPaymentChanges: change });
    expect(names![0]!.data).toEqual({ pspPaymentChanges: { eventName: 'psp.payment.initiated.v1' } });
    const after = await fanOut();
    expect(after.notifications - before.notifications).toBe(3);
    expect(after.executions - before.executions).toBe(2);
  } finally {
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));
  }
});
