import { forkEm } from '../../src/platform/db/orm.js';
import { DEFAULT_MAX_BUFFERED } from '../../src/platform/events/event-stream.js';
import { MERCHANT_A, MerchantClient } from '../support/merchant-client.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { connectionParamsOf, eventually, Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// A subscriber that keeps up must not be failed as too slow because many events committed at once: one transaction
// with more events of a sales unit than a subscriber may hold (a bulk change, or the bus catching up after the
// database was away) reached each subscriber in one read, which overflowed its bound before it could take any.
const EVENTS_ONLY = `subscription { paymentEvents { event { reference name } } }`;
const BURST = DEFAULT_MAX_BUFFERED * 3;

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

test(`a subscriber that keeps up receives ${BURST} events committed in one transaction, in order`, async () => {
  const subscriber = new Subscriber<{ paymentEvents: { event: { reference: string; name: string } } }>(
    t.baseUrl,
    await connectionParamsOf(new MerchantClient(t.baseUrl, MERCHANT_A)),
  ).subscribe(EVENTS_ONLY);
  try {
    await eventually(() => t.app.services.events.subscriberCount === 1, 'the subscription to register');
    await commitCreatedEvents(forkEm(t.app.services.orm), 'burst-', BURST);
    const received = await subscriber.waitFor(BURST);
    expect(received.map((r) => r.data.paymentEvents.event.reference)).toEqual(Array.from({ length: BURST }, (_, i) => `burst-${i + 1}`));
    expect(subscriber.failure).toBeUndefined();
  } finally {
    await subscriber.close();
  }
});
