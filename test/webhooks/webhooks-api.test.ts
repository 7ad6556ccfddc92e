import { MERCHANT_B, MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let merchant: MerchantClient;
let other: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  other = new MerchantClient(t.baseUrl, MERCHANT_B);
});
afterAll(() => t.close());

const CAPTURED = 'epayments.payment.captured.v1';
const CREATED = 'epayments.payment.created.v1';
const register = (client: MerchantClient, body: unknown) => client.request('POST', '/webhooks/v1/webhooks', body);
const list = (client: MerchantClient) => client.request('GET', '/webhooks/v1/webhooks');
const remove = (client: MerchantClient, id: string) => client.request('DELETE', `/webhooks/v1/webhooks/${id}`);

async function removeAll(client: MerchantClient): Promise<void> {
  for (const webhook of (await list(client)).body.webhooks) expect((await remove(client, webhook.id)).status).toBe(204);
}

afterEach(async () => {
  await removeAll(merchant);
  await removeAll(other);
});

test('register, list and delete', async () => {
  const created = await register(merchant, { url: 'https://merchant.example/hooks?shop=1', events: [CAPTURED, CREATED] });
  expect(created.status).toBe(201);
  expect(Object.keys(created.body).sort()).toEqual(['id', 'secret']);
  expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(created.body.secret.length).toBeGreaterThanOrEqual(32);

  const listed = await list(merchant);
  expect(listed.status).toBe(200);
  expect(listed.body).toEqual({
    webhooks: [{ id: created.body.id, url: 'https://merchant.example/hooks?shop=1', events: [CAPTURED, CREATED] }],
  });

  const deleted = await remove(merchant, created.body.id);
  expect(deleted.status).toBe(204);
  expect(deleted.text).toBe('');
  expect((await list(merchant)).body).toEqual({ webhooks: [] });
  const again = await remove(merchant, created.body.id);
  expect(again.status).toBe(404);
  expect(again.headers.get('content-type')).toContain('application/problem+json');
});

test('unknown, repeated and missing events are refused, naming the element', async () => {
  const unknown = await register(merchant, { url: 'https://merchant.example/hook', events: [CREATED, 'epayments.payment.teleported.v1'] });
  expect(unknown.status).toBe(400);
  expect(unknown.body).toMatchObject({ status: 400, title: 'Bad Request', instance: '/webhooks/v1/webhooks', traceId: expect.any(String) });
  expect(unknown.body.extraDetails).toEqual([{ name: 'events[1]', reason: expect.stringContaining('Unknown event') }]);
  expect((await register(merchant, { url: 'https://merchant.example/hook', events: [CREATED, CREATED] })).body.extraDetails).toEqual([
    { name: 'events[1]', reason: 'Listed more than once' },
  ]);
  expect((await register(merchant, { url: 'https://merchant.example/hook', events: [] })).body.extraDetails).toEqual([
    { name: 'events', reason: expect.any(String) },
  ]);
  expect((await register(merchant, { url: 'https://merchant.example/hook' })).status).toBe(400);
  expect((await register(merchant, 'not an object')).status).toBe(400);
  expect((await list(merchant)).body.webhooks).toEqual([]);
});

test('at most 5 registrations per event per sales unit; a registration counts for each of its events', async () => {
  for (let i = 0; i < 4; i++)
    expect((await register(merchant, { url: `https://merchant.example/${i}`, events: [CAPTURED] })).status).toBe(201);
  expect((await register(merchant, { url: 'https://merchant.example/4', events: [CREATED, CAPTURED] })).status).toBe(201);
  const sixth = await register(merchant, { url: 'https://merchant.example/5', events: [CREATED, CAPTURED] });
  expect(sixth.status).toBe(400);
  expect(sixth.body.title).toBe('Too many webhooks for this event');
  expect(sixth.body.extraDetails).toEqual([{ name: 'events[1]', reason: expect.stringContaining(CAPTURED) }]);
  // Other events still have room, and another sales unit has its own limit.
  expect((await register(merchant, { url: 'https://merchant.example/6', events: [CREATED] })).status).toBe(201);
  expect((await register(other, { url: 'https://merchant.example/7', events: [CAPTURED] })).status).toBe(201);
  expect((await list(merchant)).body.webhooks).toHaveLength(6);
});

test.each([
  ['not a url', /valid absolute URL/],
  ['/relative/path', /valid absolute URL/],
  ['ftp://merchant.example/hook', /HTTPS/],
  ['http://merchant.example/hook', /HTTPS/],
  ['https://user:pass@merchant.example/hook', /credentials/],
  ['https://10.1.2.3/hook', /private/],
  ['https://169.254.169.254/latest/meta-data', /private/],
  ['https://[fd00::1]/hook', /private/],
  ['http://192.168.1.10:8080/hook', /HTTPS/],
])('the URL %s is refused', async (url, reason) => {
  const refused = await register(merchant, { url, events: [CREATED] });
  expect(refused.status).toBe(400);
  expect(refused.body.extraDetails).toEqual([{ name: 'url', reason: expect.stringMatching(reason) }]);
});

test.each(['https://merchant.example:8443/hook', 'http://127.0.0.1:9/hook', 'http://localhost:65000/', 'http://[::1]:3000/x'])(
  'the test environment accepts %s',
  async (url) => {
    expect((await register(merchant, { url, events: [CREATED] })).status).toBe(201);
  },
);

test('registrations are scoped to the caller: another merchant sees none and cannot delete them', async () => {
  const mine = (await register(merchant, { url: 'https://merchant.example/mine', events: [CREATED] })).body.id;
  expect((await list(other)).body.webhooks).toEqual([]);
  const foreign = await remove(other, mine);
  expect(foreign.status).toBe(404);
  expect(foreign.body.title).toBe('Webhook not found');
  expect((await list(merchant)).body.webhooks).toHaveLength(1);
  const deliveries = await other.graphql('query($id: ID!) { webhookDeliveries(webhookId: $id) { edges { cursor } } }', { id: mine });
  expect(deliveries.body).toEqual({ data: { webhookDeliveries: null } });
});

test('deleting with a path id that is not a UUID is a bad request naming id', async () => {
  for (const id of ['not-a-uuid', '123', '00000000-0000-0000-0000-00000000000g']) {
    const res = await remove(merchant, id);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, extraDetails: [{ name: 'id', reason: 'Must be a UUID' }] });
  }
  // A well-formed id nobody registered is still unknown.
  expect((await remove(merchant, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
});

test('the same credentials as the ePayment API are required', async () => {
  const { Authorization: _token, ...withoutToken } = await merchant.headers();
  expect((await merchant.raw('GET', '/webhooks/v1/webhooks', undefined, withoutToken)).status).toBe(401);
  const { 'Merchant-Serial-Number': _msn, ...withoutMsn } = await merchant.headers();
  const noMsn = await merchant.raw('GET', '/webhooks/v1/webhooks', undefined, withoutMsn);
  expect(noMsn.status).toBe(400);
  expect(noMsn.body.extraDetails).toEqual([{ name: 'Merchant-Serial-Number', reason: 'The header is required' }]);
  const foreignMsn = await merchant.raw('GET', '/webhooks/v1/webhooks', undefined, {
    ...(await merchant.headers()),
    'Merchant-Serial-Number': MERCHANT_B.msn,
  });
  expect(foreignMsn.status).toBe(403);
  expect((await merchant.request('PUT', '/webhooks/v1/webhooks')).status).toBe(405);
});

describe('the graph', () => {
  const REGISTER = `mutation($input: RegisterWebhookInput!) { registerWebhook(input: $input) { webhook { id url events createdAt } secret userErrors { code field message } } }`;
  const DELETE = `mutation($id: ID!) { deleteWebhook(input: { id: $id }) { deletedWebhookId userErrors { code field } } }`;

  test('registers, lists and deletes with the same rules as REST', async () => {
    const registered = await merchant.graphql(REGISTER, { input: { url: 'https://merchant.example/graph', events: [CAPTURED] } });
    const payload = registered.body.data.registerWebhook;
    expect(payload).toMatchObject({
      webhook: { url: 'https://merchant.example/graph', events: [CAPTURED] },
      secret: expect.any(String),
      userErrors: [],
    });
    const listed = await merchant.graphql('{ webhooks { id url events } }');
    expect(listed.body.data.webhooks).toEqual([{ id: payload.webhook.id, url: 'https://merchant.example/graph', events: [CAPTURED] }]);
    expect((await list(merchant)).body.webhooks.map((w: any) => w.id)).toEqual([payload.webhook.id]);

    const foreign = await other.graphql(DELETE, { id: payload.webhook.id });
    expect(foreign.body.data.deleteWebhook).toEqual({ deletedWebhookId: null, userErrors: [{ code: 'WEBHOOK_NOT_FOUND', field: 'id' }] });
    const deleted = await merchant.graphql(DELETE, { id: payload.webhook.id });
    expect(deleted.body.data.deleteWebhook).toEqual({ deletedWebhookId: payload.webhook.id, userErrors: [] });
  });

  test('problems come back as userErrors naming the field', async () => {
    const refused = await merchant.graphql(REGISTER, { input: { url: 'http://merchant.example/x', events: [CREATED, 'nope'] } });
    expect(refused.body.data.registerWebhook).toEqual({
      webhook: null,
      secret: null,
      userErrors: [
        { code: 'VALIDATION_FAILED', field: 'url', message: expect.stringContaining('HTTPS') },
        { code: 'VALIDATION_FAILED', field: 'events[1]', message: expect.stringContaining('Unknown event') },
      ],
    });
  });
});
