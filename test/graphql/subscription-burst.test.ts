import { forkEm } from '../../src/platform/db/orm.js';
import { DEFAULT_MAX_BUFFERED } from '../../src/platform/events/event-stream.js';
import { MERCHANT_A, MerchantClient } from '../support/merchant-client.js';
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
    await eventually(() => t.app.services.paymentEvents.subscriberCount === 1, 'the subscription to register');
    await forkEm(t.app.services.orm).execute(
      `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at)
       select 'payment', md5('burst-' || p), '123456', 'epayments.payment.created.v1',
         jsonb_build_object('reference', 'burst-' || p, 'pspReference', 'burst', 'name', 'CREATED',
           'amount', jsonb_build_object('currency', 'NOK', 'value', 1000), 'idempotencyKey', null, 'success', true),
         now()
       from generate_series(1, ?::int) p order by p`,
      [BURST],
    );
    const received = await subscriber.waitFor(BURST);
    expect(received.map((r) => r.data.paymentEvents.event.reference)).toEqual(Array.from({ length: BURST }, (_, i) => `burst-${i + 1}`));
    expect(subscriber.failure).toBeUndefined();
  } finally {
    await subscriber.close();
  }
});
