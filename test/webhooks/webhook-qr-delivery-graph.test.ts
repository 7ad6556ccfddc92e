import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** issue 24: a QR check-in's delivery once blanked the merchant's whole webhooks query (its name is no payment event's). */
let t: TestApp;
let merchant: MerchantClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const DELIVERIES = `{ webhooks { id deliveries(first: 10) { edges { node { eventType eventName reference status } } } } }`;

test('a check-in delivery and a payment delivery are both shown, each with its event type', async () => {
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
    url: receiver.url('/all'),
    events: ['user.checked-in.v1', 'epayments.payment.created.v1'],
  });
  expect(registered.status).toBe(201);
  receiver.route('/all', registered.body.secret);

  const reference = newReference('qr-graph');
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  expect((await merchant.request('PUT', '/qr/v1/merchant-callback/till-9', { locationDescription: 'Till 9' })).status).toBeLessThan(300);
  const { qrContent } = (await merchant.request('GET', '/qr/v1/merchant-callback/till-9', undefined, { Accept: 'image/svg+xml' })).body;
  // The page's form posts the phone number to the QR's URL: that POST is the scan, which records the check-in.
  const scan = await fetch(qrContent, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.baseUrl },
    body: 'phoneNumber=4791234567',
  });
  expect(scan.status).toBe(200);
  await receiver.waitFor((received) => received.filter((r) => r.path === '/all').length === 2, 'both deliveries');

  const res = await merchant.graphql(DELIVERIES);
  expect(res.body.errors).toBeUndefined();
  const hook = res.body.data.webhooks.find((w: any) => w.id === registered.body.id);
  const nodes = hook.deliveries.edges.map((e: any) => e.node);
  expect(nodes).toHaveLength(2);
  expect(nodes).toEqual(
    expect.arrayContaining([
      { eventType: 'user.checked-in.v1', eventName: null, reference: '', status: expect.any(String) },
      { eventType: 'epayments.payment.created.v1', eventName: 'CREATED', reference, status: expect.any(String) },
    ]),
  );
});
