import { forkEm } from '../../src/platform/db/orm.js';
import { expectInvalidParamsProblem as expectRefusal } from '../support/invalid-params-problem.js';
import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { connectionParamsOf, eventually, Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { decodePngQr, decodeSvgQr } from './qr-decode.js';

let t: TestApp;
let merchant: MerchantClient;
let other: MerchantClient;
let receiver: WebhookReceiver;
const sockets: Subscriber[] = [];

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  other = new MerchantClient(t.baseUrl, MERCHANT_B);
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  await receiver.close();
  await t.close();
});

const SVG = { Accept: 'image/svg+xml' };
const redirect = (body: unknown, headers: Record<string, string> = SVG) =>
  merchant.request('POST', '/qr/v1/merchant-redirect', body, headers);

/** An image URL opened as anyone would: no credentials. */
async function image(url: string): Promise<Response> {
  return fetch(url);
}

async function svgText(url: string): Promise<string> {
  const res = await image(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/svg+xml');
  return decodeSvgQr(await res.text());
}

describe('merchant redirect QR', () => {
  // Renders and decodes an image in every format: tens of seconds on a busy 2-core machine, hence its own time-out.
  test('create, read in every format, update the target (the image stays), delete', async () => {
    const created = await redirect({ id: 'Kasse 1 æøå+%_-', redirectUrl: 'https://shop.example/first' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: 'Kasse 1 æøå+%_-',
      url: expect.stringContaining('/qr/public/images/'),
      redirectUrl: 'https://shop.example/first',
      expiresIn: -1,
    });
    const encoded = await svgText(created.body.url);
    expect(encoded.startsWith(`${t.baseUrl}/qr/public/redirect/`)).toBe(true);
    const followed = await fetch(encoded, { redirect: 'manual' });
    expect(followed.status).toBe(302);
    expect(followed.headers.get('location')).toBe('https://shop.example/first');

    const id = encodeURIComponent('Kasse 1 æøå+%_-');
    const png = await merchant.request('GET', `/qr/v1/merchant-redirect/${id}`, undefined, { Accept: 'image/png', Size: '300' });
    expect(png.status).toBe(200);
    const pngRes = await image(png.body.url);
    expect(pngRes.headers.get('content-type')).toBe('image/png');
    expect(pngRes.headers.get('etag')).toBeTruthy();
    expect(pngRes.headers.get('cache-control')).toContain('max-age');
    const decoded = decodePngQr(Buffer.from(await pngRes.arrayBuffer()));
    expect(decoded).toEqual({ text: encoded, width: 300, height: 300 });
    // Served from the render cache: the same bytes and ETag; a conditional GET is a 304.
    const again = await fetch(png.body.url, { headers: { 'If-None-Match': pngRes.headers.get('etag')! } });
    expect(again.status).toBe(304);

    const byDefault = await merchant.request('GET', `/qr/v1/merchant-redirect/${id}`, undefined, { Accept: 'image/png' });
    expect(decodePngQr(Buffer.from(await (await image(byDefault.body.url)).arrayBuffer())).width).toBe(800);
    const anyImage = await merchant.request('GET', `/qr/v1/merchant-redirect/${id}`, undefined, { Accept: 'image/*' });
    expect(await svgText(anyImage.body.url)).toBe(encoded);
    const target = await merchant.request('GET', `/qr/v1/merchant-redirect/${id}`, undefined, { Accept: 'text/targetUrl' });
    expect(target.body.url).toBe(encoded);

    const updated = await merchant.request('PUT', `/qr/v1/merchant-redirect/${id}`, { redirectUrl: 'https://shop.example/second' }, SVG);
    expect(updated.body).toEqual({ ...created.body, redirectUrl: 'https://shop.example/second' });
    expect((await fetch(encoded, { redirect: 'manual' })).headers.get('location')).toBe('https://shop.example/second');

    const listed = await merchant.request('GET', '/qr/v1/merchant-redirect');
    expect(listed.body.map((q: { id: string }) => q.id)).toContain('Kasse 1 æøå+%_-');
    // issue 19: the QR definition's 409 body, `{id}`.
    const clash = await redirect({ id: 'Kasse 1 æøå+%_-', redirectUrl: 'https://shop.example/x' });
    expect(clash.status).toBe(409);
    expect(clash.body).toEqual({ id: 'Kasse 1 æøå+%_-' });

    const deleted = await merchant.request('DELETE', `/qr/v1/merchant-redirect/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expectRefusal(await merchant.request('GET', `/qr/v1/merchant-redirect/${id}`, undefined, SVG), 404, 'id');
    expect((await image(created.body.url)).status).toBe(404);
    expectRefusal(await merchant.request('DELETE', `/qr/v1/merchant-redirect/${id}`), 404);
  }, 120_000);

  test('a ttl counts down from the stored expiry; an expired QR and its image are gone', async () => {
    const created = await redirect({ id: 'short-lived', redirectUrl: 'https://shop.example/t', ttl: 300 });
    expect(created.body.expiresIn).toBe(300);
    t.clock.advance(100_000);
    expect((await merchant.request('GET', '/qr/v1/merchant-redirect/short-lived', undefined, SVG)).body.expiresIn).toBe(200);
    t.clock.advance(201_000);
    expectRefusal(await merchant.request('GET', '/qr/v1/merchant-redirect/short-lived', undefined, SVG), 404);
    expect((await image(created.body.url)).status).toBe(404);
    // Its id is free again.
    expect((await redirect({ id: 'short-lived', redirectUrl: 'https://shop.example/t' })).status).toBe(200);
  });

  test.each([
    ['an id with a character outside the set', { id: 'a/b?', redirectUrl: 'https://x.example' }, 'id'],
    ['an id of 129 characters', { id: 'a'.repeat(129), redirectUrl: 'https://x.example' }, 'id'],
    ['an http redirectUrl', { id: 'x1', redirectUrl: 'http://x.example' }, 'redirectUrl'],
    ['a ttl below 300', { id: 'x2', redirectUrl: 'https://x.example', ttl: 299 }, 'ttl'],
    ['a ttl above 2147483647', { id: 'x3', redirectUrl: 'https://x.example', ttl: 2147483648 }, 'ttl'],
  ])('%s is a 400', async (_, body, name) => {
    expectRefusal(await redirect(body), 400, name);
  });

  test('any other Accept is a 415; a Size outside 100 to 2000 is a 400', async () => {
    expectRefusal(await redirect({ id: 'acc-1', redirectUrl: 'https://x.example' }, { Accept: 'application/json' }), 415, 'Accept');
    expectRefusal(await redirect({ id: 'acc-2', redirectUrl: 'https://x.example' }, { Accept: 'image/png', Size: '99' }), 400, 'Size');
    expectRefusal(await redirect({ id: 'acc-3', redirectUrl: 'https://x.example' }, { Accept: 'image/png', Size: '2001' }), 400, 'Size');
    expect((await redirect({ id: 'acc-4', redirectUrl: 'https://x.example' }, { Accept: 'image/png', Size: '2000' })).status).toBe(200);
  });
});

describe('one-time payment QR', () => {
  test("for a landing URL of one of the caller's payments; expiresIn follows the session", async () => {
    const reference = newReference();
    const created = await merchant.createPayment({ reference });
    const landing = created.body.redirectUrl as string;
    const qr = await merchant.request('POST', '/qr/v1', { url: landing }, { Accept: 'image/png', Size: '400' });
    expect(qr.status).toBe(200);
    expect(qr.body.expiresIn).toBeGreaterThan(500);
    expect(qr.body.expiresIn).toBeLessThanOrEqual(600);
    expect(decodePngQr(Buffer.from(await (await image(qr.body.url)).arrayBuffer())).text).toBe(landing);
    // Not a landing URL of the caller's: another merchant's, a made-up one, another site.
    expectRefusal(await other.request('POST', '/qr/v1', { url: landing }, SVG), 400, 'url');
    expectRefusal(await merchant.request('POST', '/qr/v1', { url: `${t.baseUrl}/wallet/landing?token=nope` }, SVG), 400, 'url');
    expectRefusal(await merchant.request('POST', '/qr/v1', { url: 'https://example.com/landing' }, SVG), 400, 'url');
    expectRefusal(await merchant.request('POST', '/qr/v1', { url: landing }, { Accept: 'text/plain' }), 415);
    t.clock.advance(11 * 60_000);
    expect((await image(qr.body.url)).status).toBe(404);
  });
});

describe('callback QR', () => {
  test('create, read, relocate (the image stays), list, delete; MSN required', async () => {
    const put = await merchant.request('PUT', '/qr/v1/merchant-callback/lane-1', { locationDescription: 'Checkout lane 1' });
    expect(put.status).toBe(200);
    expect(put.text).toBe('');
    const got = await merchant.request('GET', '/qr/v1/merchant-callback/lane-1', undefined, SVG);
    expect(got.body).toEqual({
      merchantSerialNumber: '123456',
      merchantQrId: 'lane-1',
      locationDescription: 'Checkout lane 1',
      qrImageUrl: expect.stringContaining('/qr/public/images/'),
      qrContent: expect.stringContaining(`${t.baseUrl}/qr/scan/`),
    });
    expect(await svgText(got.body.qrImageUrl)).toBe(got.body.qrContent);
    await merchant.request('PUT', '/qr/v1/merchant-callback/lane-1', { locationDescription: 'Kiosk' });
    const moved = await merchant.request('GET', '/qr/v1/merchant-callback/lane-1', undefined, SVG);
    expect(moved.body).toEqual({ ...got.body, locationDescription: 'Kiosk' });
    expect((await merchant.request('GET', '/qr/v1/merchant-callback')).body).toContainEqual(moved.body);
    expectRefusal(await merchant.request('PUT', '/qr/v1/merchant-callback/lane-2', {}), 400, 'locationDescription');
    const headers = await merchant.headers();
    delete headers['Merchant-Serial-Number'];
    expectRefusal(await merchant.raw('GET', '/qr/v1/merchant-callback', undefined, headers), 400, 'Merchant-Serial-Number');
    expect((await merchant.request('DELETE', '/qr/v1/merchant-callback/lane-1')).status).toBe(200);
    expectRefusal(await merchant.request('GET', '/qr/v1/merchant-callback/lane-1', undefined, SVG), 404);
    expectRefusal(await merchant.request('DELETE', '/qr/v1/merchant-callback/lane-1'), 404);
  });

  test("merchant B sees none of merchant A's QRs", async () => {
    await merchant.request('PUT', '/qr/v1/merchant-callback/mine', { locationDescription: 'A' });
    await redirect({ id: 'mine', redirectUrl: 'https://a.example' });
    expectRefusal(await other.request('GET', '/qr/v1/merchant-callback/mine', undefined, SVG), 404);
    expectRefusal(await other.request('GET', '/qr/v1/merchant-redirect/mine', undefined, SVG), 404);
    expect((await other.request('GET', '/qr/v1/merchant-callback')).body).toEqual([]);
    expect((await other.request('GET', '/qr/v1/merchant-redirect')).body).toEqual([]);
    // B's own QR of the same id is B's.
    expect((await other.request('POST', '/qr/v1/merchant-redirect', { id: 'mine', redirectUrl: 'https://b.example' }, SVG)).status).toBe(
      200,
    );
  });
});

describe('check-in', () => {
  test('end to end: a webhook for check-ins, a callback QR, the wallet user scans, the signed event, a payment with the customerToken', async () => {
    const spec = await merchant.request('POST', '/webhooks/v1/webhooks', { url: receiver.url('/spec'), events: ['QrScannedEvent'] });
    const current = await merchant.request('POST', '/webhooks/v1/webhooks', {
      url: receiver.url('/current'),
      events: ['user.checked-in.v1'],
    });
    expect([spec.status, current.status]).toEqual([201, 201]);
    receiver.route('/spec', spec.body.secret);
    receiver.route('/current', current.body.secret);
    const before = t.app.services.events.subscriberCount;
    const subscriber = new Subscriber(t.baseUrl, await connectionParamsOf(merchant)).subscribe(
      'subscription { qrCheckIns { customerToken merchantQrId merchantSerialNumber initiatedAt } }',
    );
    sockets.push(subscriber);
    const foreign = new Subscriber(t.baseUrl, await connectionParamsOf(other)).subscribe('subscription { qrCheckIns { merchantQrId } }');
    sockets.push(foreign);
    await eventually(() => t.app.services.events.subscriberCount === before + 2, 'both subscriptions to register');

    await merchant.request('PUT', '/qr/v1/merchant-callback/till-7', { locationDescription: 'Till 7' });
    const { qrContent } = (await merchant.request('GET', '/qr/v1/merchant-callback/till-7', undefined, SVG)).body;
    const page = await fetch(qrContent);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Till 7');
    // The page's form posts the phone number to the same URL: that POST is the scan.
    const scan = await fetch(qrContent, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.baseUrl },
      body: 'phoneNumber=4791234567',
    });
    expect(scan.status).toBe(200);
    expect(await scan.text()).toContain('Checked in');

    await receiver.waitFor((r) => r.some((w) => w.path === '/spec') && r.some((w) => w.path === '/current'), 'both check-in webhooks');
    const [bySpec, byCurrent] = ['/spec', '/current'].map((path) => receiver.received.find((w) => w.path === path)!);
    for (const delivery of [bySpec!, byCurrent!]) {
      expect(delivery.verified).toBe(true);
      expect(delivery.body).toEqual({
        customerToken: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
        merchantQrId: 'till-7',
        merchantSerialNumber: '123456',
        initiatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    }
    expect(byCurrent!.body).toEqual(bySpec!.body);
    await eventually(() => subscriber.results.length > 0, 'the subscriber to see the check-in');
    expect(subscriber.results[0]!.data.qrCheckIns).toEqual(bySpec!.body);

    // The customer token names the user to a PUSH_MESSAGE payment, which is then approved.
    const reference = newReference();
    const payment = await merchant.createPayment({
      reference,
      userFlow: 'PUSH_MESSAGE',
      returnUrl: undefined,
      customer: { customerToken: bySpec!.body.customerToken },
    });
    expect(payment.status).toBe(201);
    expect((await merchant.forceApprove(reference)).status).toBe(200);
    expect((await merchant.getPayment(reference)).body.state).toBe('AUTHORIZED');

    // A JSON scan works too; a mapped beacon checks in under its beacon id.
    expect((await merchant.request('PUT', '/qr/v1/merchant-callback/mobilepay/200123', { locationDescription: 'Old till' })).status).toBe(
      200,
    );
    const json = await fetch(qrContent, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ phoneNumber: '98765432' }),
    });
    expect(json.status).toBe(200);
    expect(((await json.json()) as { merchantQrId: string }).merchantQrId).toBe('till-7');
    const unknownUser = await fetch(qrContent, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ phoneNumber: '4700000000' }),
    });
    expect(unknownUser.status).toBe(400);
    expect(foreign.results).toEqual([]);
  });

  test('the scan page is refused in production: no test user stands in for the wallet there, and nothing is recorded', async () => {
    await merchant.request('PUT', '/qr/v1/merchant-callback/prod-lane', { locationDescription: 'Production lane' });
    const { qrContent } = (await merchant.request('GET', '/qr/v1/merchant-callback/prod-lane', undefined, SVG)).body;
    const checkIns = async () =>
      Number(
        (await forkEm(t.app.services.orm).execute<{ n: string }[]>("select count(*) as n from domain_event where stream_type = 'qr'"))[0]!
          .n,
      );
    const before = await checkIns();
    const config = t.app.services.config;
    const env = config.env;
    config.env = 'production';
    try {
      const page = await fetch(qrContent);
      expect(page.status).toBe(403);
      const html = await page.text();
      expect(html).toContain('There is no simulated wallet user in production.');
      expect(html).not.toContain('<form');
      const form = await fetch(qrContent, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.baseUrl },
        body: 'phoneNumber=4791234567',
      });
      expect(form.status).toBe(403);
      const json = await fetch(qrContent, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ phoneNumber: '4791234567' }),
      });
      expect(json.status).toBe(403);
      expect(((await json.json()) as { detail: string }).detail).toBe('There is no simulated wallet user in production.');
    } finally {
      config.env = env;
    }
    expect(await checkIns()).toBe(before);
    expect((await fetch(qrContent)).status).toBe(200);
  });
});

describe('the graph', () => {
  test('connections and mutations with userErrors', async () => {
    const CREATE = `mutation($i: CreateRedirectQrInput!) { createRedirectQr(input: $i) {
      redirectQr { id redirectUrl expiresIn imageUrl png: imageUrl(format: PNG, size: 200) targetUrl } userErrors { code field } } }`;
    const created = await merchant.graphql(CREATE, { i: { id: 'graph-qr', redirectUrl: 'https://shop.example/g', ttl: 600 } });
    const qr = created.body.data.createRedirectQr.redirectQr;
    expect(qr).toEqual(expect.objectContaining({ id: 'graph-qr', redirectUrl: 'https://shop.example/g', expiresIn: 600 }));
    expect(await svgText(qr.imageUrl)).toBe(qr.targetUrl);
    expect(decodePngQr(Buffer.from(await (await image(qr.png)).arrayBuffer()))).toEqual({ text: qr.targetUrl, width: 200, height: 200 });
    const twice = await merchant.graphql(CREATE, { i: { id: 'graph-qr', redirectUrl: 'https://shop.example/g' } });
    expect(twice.body.data.createRedirectQr).toEqual({ redirectQr: null, userErrors: [{ code: 'QR_ALREADY_EXISTS', field: 'id' }] });
    const bad = await merchant.graphql(CREATE, { i: { id: 'graph-qr-2', redirectUrl: 'http://insecure.example' } });
    expect(bad.body.data.createRedirectQr.userErrors).toEqual([{ code: 'VALIDATION_FAILED', field: 'redirectUrl' }]);

    const set = await merchant.graphql(
      'mutation($i: SetCallbackQrInput!) { setCallbackQr(input: $i) { callbackQr { merchantQrId locationDescription qrContent } userErrors { code } } }',
      { i: { merchantQrId: 'graph-lane', locationDescription: 'Platform 2' } },
    );
    expect(set.body.data.setCallbackQr.callbackQr).toEqual(
      expect.objectContaining({ merchantQrId: 'graph-lane', locationDescription: 'Platform 2' }),
    );
    const list = await merchant.graphql(
      '{ callbackQrs(first: 100) { edges { node { merchantQrId } } } redirectQrs(first: 1) { edges { cursor node { id } } pageInfo { hasNextPage } } }',
    );
    expect(list.body.data.callbackQrs.edges.map((e: any) => e.node.merchantQrId)).toContain('graph-lane');
    expect(list.body.data.redirectQrs.edges).toHaveLength(1);
    const next = await merchant.graphql('query($a: String) { redirectQrs(first: 100, after: $a) { edges { node { id } } } }', {
      a: list.body.data.redirectQrs.edges[0].cursor,
    });
    expect(next.body.data.redirectQrs.edges.map((e: any) => e.node.id)).not.toContain(list.body.data.redirectQrs.edges[0].node.id);

    const removed = await merchant.graphql(
      'mutation { deleteCallbackQr(input: { merchantQrId: "graph-lane" }) { deletedMerchantQrId userErrors { code } } }',
    );
    expect(removed.body.data.deleteCallbackQr).toEqual({ deletedMerchantQrId: 'graph-lane', userErrors: [] });
    const missing = await merchant.graphql('mutation { deleteRedirectQr(input: { id: "nope" }) { deletedId userErrors { code field } } }');
    expect(missing.body.data.deleteRedirectQr).toEqual({ deletedId: null, userErrors: [{ code: 'QR_NOT_FOUND', field: 'id' }] });
  });
});

// issue 19 point 8: the QR interface describes itself where the README says every interface does.
test('the QR OpenAPI document is at /qr/v1/openapi.json and lists every QR route', async () => {
  const res = await fetch(`${t.baseUrl}/qr/v1/openapi.json`);
  expect(res.status).toBe(200);
  const document = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
  const routes = t.app.router.routes.filter(
    (r) => (r.pattern === '/qr/v1' || r.pattern.startsWith('/qr/v1/')) && r.pattern !== '/qr/v1/openapi.json',
  );
  expect(routes.length).toBeGreaterThanOrEqual(11);
  for (const route of routes) expect(document.paths[route.pattern]?.[route.method.toLowerCase()]).toBeDefined();
  expect(document.paths['/qr/v1/merchant-redirect']).toBeDefined();
});
