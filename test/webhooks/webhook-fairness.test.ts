import { loadConfig } from '../../src/config.js';
import { RECEIVER_CONCURRENCY } from '../../src/platform/delivery/receiver-concurrency.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const CREATED = 'epayments.payment.created.v1';
/** Longer than the test waits: a POST to the hanging receiver holds its slot for the whole test. */
const TIMEOUT_MS = 60_000;
/** More due deliveries for the hanging receiver than its cap of POSTs in flight. */
const HUNG_PAYMENTS = 40;

let t: TestApp;
let merchant: MerchantClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({ webhooks: { ...loadConfig({}).webhooks, timeoutMs: TIMEOUT_MS } });
  merchant = new MerchantClient(t.baseUrl);
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  // Closing the receiver first ends the hanging POSTs, so the app's shutdown does not wait out their timeout.
  await receiver.close();
  await t.close();
});

async function register(path: string, reply: () => number | { hang: number }): Promise<string> {
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', { url: receiver.url(path), events: [CREATED] });
  expect(registered.status).toBe(201);
  receiver.route(path, registered.body.secret, reply);
  return registered.body.id;
}

test('a hanging receiver with many due events does not hold back another registration’s deliveries', async () => {
  await register('/hang', () => ({ hang: 120_000 }));
  const hung: string[] = [];
  for (let i = 0; i < HUNG_PAYMENTS; i++) {
    const reference = newReference();
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    hung.push(reference);
  }
  await receiver.waitFor((received) => received.some((r) => r.path === '/hang'), 'the hanging receiver’s first POST');

  // Registered after the backlog: its delivery is due later than all 40 of the hanging receiver's.
  await register('/ok', () => 200);
  const reference = newReference();
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  await receiver.waitFor(
    (received) => received.some((r) => r.path === '/ok' && r.body.reference === reference),
    'the other registration’s delivery while the hanging one holds its slots',
  );

  // No POST to the hanging receiver has ended (none can before the timeout), so no more than the cap were started.
  const toHung = receiver.at('/hang');
  expect(toHung.length).toBeGreaterThan(0);
  expect(toHung.length).toBeLessThanOrEqual(RECEIVER_CONCURRENCY.initial);
  expect(toHung.every((r) => hung.includes(r.body.reference))).toBe(true);
});
