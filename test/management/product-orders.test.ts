import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { forkEm } from '../../src/platform/db/orm.js';
import { useTestApp } from '../support/app-fixture.js';
import { PartnerClient } from '../support/partner-client.js';
import { mgmt, orderBody, png, PRICE_PACKAGE_I_KASSA, SYSTEM_HEADERS } from './management-support.js';

const WEBSITE = { url: 'https://nyttfirma.no', termsUrl: 'https://nyttfirma.no/terms' };

// Several helpers share the machine's two cores: a request can take seconds.
jest.setTimeout(30_000);
const t = useTestApp({ runJobs: false });

function order(body: unknown, key: string = randomUUID()) {
  return mgmt(t.partner, 'POST', '/product-orders', body, { 'Idempotency-Key': key });
}

/** Submits the order as the merchant's browser does: the page's form, posted from the page's own origin. */
async function submitOnPage(prefillUrl: string, fields: Record<string, string> = {}) {
  const token = new URL(prefillUrl).searchParams.get('token')!;
  const res = await fetch(`${t.baseUrl}/merchant-portal/prefill/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, ...fields }).toString(),
  });
  return { status: res.status, html: await res.text() };
}

describe('pre-fill', () => {
  test('201 with the order id and the prefill page; read gives RECEIVED', async () => {
    const res = await order(orderBody());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      prefilledOrderId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      prefillUrl: expect.any(String),
      prefillStatus: 'RECEIVED',
    });
    const read = await mgmt(t.partner, 'GET', `/product-orders/${res.body.prefilledOrderId}`);
    expect(read.body).toEqual({ prefilledOrderId: res.body.prefilledOrderId, prefillStatus: 'RECEIVED' });
    const page = await fetch(res.body.prefillUrl.replace(/^https?:\/\/[^/]+/, t.baseUrl));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('920000029');
  });

  // Issue 19 point 6: partner clients send the platform's older product names; each is taken as our SVC_ name.
  test.each([
    ['VIPPS_PA_NETT', 'Payments online', {}],
    ['VIPPS_I_KASSA', 'Payments in the shop', { pricePackageId: PRICE_PACKAGE_I_KASSA }],
    ['VIPPS_LOGG_INN', 'Login', { pricePackageId: undefined }],
    ['VIPPS_CHECKOUT', 'Checkout', { pricePackageId: undefined }],
  ])('productType %s is taken as our product, shown to the merchant as %s', async (sent, taken, overrides) => {
    const res = await order(orderBody({ productType: sent, ...overrides }));
    expect(res.status).toBe(201);
    const page = await (await fetch(res.body.prefillUrl.replace(/^https?:\/\/[^/]+/, t.baseUrl))).text();
    expect(page).toContain(`<dt>Product</dt><dd data-testid="product">${taken}</dd>`);
  });

  test('SVC_PA_NETT without website and complianceData is accepted as WAITING_FOR_MERCHANT', async () => {
    const res = await order(orderBody({ website: undefined, complianceData: undefined }));
    expect(res.status).toBe(201);
    expect(res.body.prefillStatus).toBe('WAITING_FOR_MERCHANT');
    expect((await mgmt(t.partner, 'GET', `/product-orders/${res.body.prefilledOrderId}`)).body.prefillStatus).toBe('WAITING_FOR_MERCHANT');
  });

  test('Idempotency-Key: required, 1 to 50 of letters, digits and -, replayed, conflicting', async () => {
    expect((await mgmt(t.partner, 'POST', '/product-orders', orderBody())).status).toBe(400);
    expect((await order(orderBody(), 'bad key!')).status).toBe(400);
    expect((await order(orderBody(), 'k'.repeat(51))).status).toBe(400);
    const key = randomUUID();
    const first = await order(orderBody(), key);
    const again = await order(orderBody(), key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await order(orderBody({ salesUnitName: 'Something else' }), key)).status).toBe(409);
  });

  test('the test website and its login are taken, and the merchant sees them on the prefill page', async () => {
    const website = {
      ...WEBSITE,
      testWebsiteUrl: 'https://test.nyttfirma.no',
      testWebsiteUsername: 'reviewer',
      testWebsitePassword: 'pa55',
    };
    const res = await order(orderBody({ website }));
    expect(res.status).toBe(201);
    const page = await (await fetch(res.body.prefillUrl.replace(/^https?:\/\/[^/]+/, t.baseUrl))).text();
    expect(page).toContain('https://test.nyttfirma.no');
    expect(page).toContain('reviewer');
  });

  test('every field rule names its field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ businessIdentifier: { scheme: 'business:SE:ORG', id: '920000029' } }, 'businessIdentifier.scheme'],
      [{ businessIdentifier: { scheme: 'business:NO:ORG', id: '92000002' } }, 'businessIdentifier.id'],
      [{ businessIdentifier: { scheme: 'business:NO:ORG', id: '920000011' } }, 'businessIdentifier.id'],
      [{ businessIdentifier: { scheme: 'business:NO:ORG', id: '920000061' } }, 'businessIdentifier.id'],
      [{ businessIdentifier: { scheme: 'business:NO:ORG', id: '920000045' } }, 'businessIdentifier.id'],
      [{ businessIdentifier: { scheme: 'business:NO:ORG', id: '920000053' } }, 'businessIdentifier.id'],
      [{ salesUnitName: '' }, 'salesUnitName'],
      [{ salesUnitName: 'x'.repeat(31) }, 'salesUnitName'],
      [{ salesUnitName: 'Shop <script>' }, 'salesUnitName'],
      [{ settlementAccountNumber: '1234567890' }, 'settlementAccountNumber'],
      [{ settlementAccountNumber: '12345678901' }, 'settlementAccountNumber'],
      [{ pricePackageId: 'not-a-uuid' }, 'pricePackageId'],
      [{ pricePackageId: randomUUID() }, 'pricePackageId'],
      [{ pricePackageId: PRICE_PACKAGE_I_KASSA }, 'pricePackageId'],
      [{ productType: 'SVC_LOGG_INN' }, 'pricePackageId'],
      [{ productType: 'VIPPS_RECURRING' }, 'productType'],
      [{ productType: 'svc_pa_nett' }, 'productType'],
      [{ productUseCase: 'Shop' }, 'productUseCase'],
      [{ annualTurnover: -1 }, 'annualTurnover'],
      [{ annualTurnover: 1_000_000_000 }, 'annualTurnover'],
      [{ website: { url: 'http://nyttfirma.no', termsUrl: 'https://nyttfirma.no/terms' } }, 'website.url'],
      [{ website: { url: 'https://nyttfirma.no' } }, 'website.termsUrl'],
      [{ salesUnitLogo: 'not base64!' }, 'salesUnitLogo'],
      [{ website: { ...WEBSITE, testWebsiteUrl: 'http://test.nyttfirma.no' } }, 'website.testWebsiteUrl'],
      [{ website: { ...WEBSITE, testWebsiteUsername: 'u'.repeat(201) } }, 'website.testWebsiteUsername'],
      [{ website: { ...WEBSITE, testWebsitePassword: 'p'.repeat(201) } }, 'website.testWebsitePassword'],
      [{ complianceData: 'none' }, 'complianceData'],
    ];
    for (const [overrides, field] of cases) {
      const res = await order(orderBody(overrides));
      expect([res.status, field]).toEqual([400, field]);
      expect([res.body.extraDetails.map((d: { key: string }) => d.key), field]).toEqual([expect.arrayContaining([field]), field]);
    }
    expect((await order(orderBody({ salesUnitLogo: await png(50, 50) }))).status).toBe(400);
    expect((await order(orderBody({ salesUnitLogo: await png(300, 300) }))).status).toBe(201);
  });

  test('only a partner pre-fills; another partner’s order or an unknown id reads as 404', async () => {
    expect((await mgmt(t.merchant, 'POST', '/product-orders', orderBody(), { 'Idempotency-Key': randomUUID() })).status).toBe(403);
    expect((await mgmt(t.partner, 'GET', `/product-orders/${randomUUID()}`)).status).toBe(404);
    expect((await mgmt(t.partner, 'GET', '/product-orders/12345')).status).toBe(404);
    const created = await order(orderBody());
    expect((await mgmt(t.merchant, 'GET', `/product-orders/${created.body.prefilledOrderId}`)).status).toBe(403);
  });
});

describe('undo', () => {
  test('before submission: 200, then the order reads as 404', async () => {
    const { body } = await order(orderBody());
    const undone = await mgmt(t.partner, 'DELETE', `/product-orders/${body.prefilledOrderId}`);
    expect(undone.status).toBe(200);
    expect((await mgmt(t.partner, 'GET', `/product-orders/${body.prefilledOrderId}`)).status).toBe(404);
    expect((await mgmt(t.partner, 'DELETE', `/product-orders/${body.prefilledOrderId}`)).status).toBe(404);
    expect((await fetch(body.prefillUrl.replace(/^https?:\/\/[^/]+/, t.baseUrl))).status).toBe(404);
  });

  test('after submission: 409', async () => {
    const { body } = await order(orderBody({ productType: 'SVC_CHECKOUT', pricePackageId: undefined }));
    expect((await submitOnPage(body.prefillUrl)).status).toBe(200);
    expect((await mgmt(t.partner, 'GET', `/product-orders/${body.prefilledOrderId}`)).body.prefillStatus).toBe('PROCESSING');
    const res = await mgmt(t.partner, 'DELETE', `/product-orders/${body.prefilledOrderId}`);
    expect(res.status).toBe(409);
    expect(res.body.extraDetails).toContainEqual({ key: 'CustomErrorCode', value: '3409' });
  });
});

describe('submission of SVC_PA_NETT', () => {
  test('creates a sales unit of the merchant, connected to the partner, that takes ePayment payments', async () => {
    const { body } = await order(
      orderBody({ businessIdentifier: { scheme: 'business:NO:ORG', id: '920000037' }, salesUnitName: 'Ny Kafé Online' }),
    );
    const submitted = await submitOnPage(body.prefillUrl);
    expect(submitted.status).toBe(200);
    const msn = /data-msn="(\d+)"/.exec(submitted.html)?.[1];
    expect(msn).toMatch(/^\d{6}$/);
    expect((await mgmt(t.partner, 'GET', `/product-orders/${body.prefilledOrderId}`)).body.prefillStatus).toBe('COMPLETED');
    expect((await submitOnPage(body.prefillUrl)).status).toBe(400);

    const forUnit = t.partner.forSalesUnit(msn!);
    expect((await mgmt(forUnit, 'GET', `/sales-units/${msn}`)).body).toEqual(
      expect.objectContaining({ msn, name: 'Ny Kafé Online', businessIdentifier: { scheme: 'business:NO:ORG', id: '920000037' } }),
    );
    expect((await mgmt(forUnit, 'GET', '/merchants/920000037/sales-units')).body).toEqual([msn]);
    // Connected, but the merchant has not consented to share its own data.
    expect((await mgmt(forUnit, 'GET', '/merchants/920000037')).status).toBe(403);
    const payment = await forUnit.request(
      'POST',
      '/epayment/v1/payments',
      {
        amount: { currency: 'NOK', value: 2500 },
        paymentMethod: { type: 'WALLET' },
        reference: `new-unit-${randomUUID()}`,
        userFlow: 'WEB_REDIRECT',
        returnUrl: 'https://nykafe.no/return',
        paymentDescription: 'Coffee',
      },
      { 'Idempotency-Key': randomUUID() },
    );
    expect(payment.status).toBe(201);
  });

  test('WAITING_FOR_MERCHANT with the website sent: the page asks only for what the partner left out', async () => {
    const { body } = await order(orderBody({ complianceData: undefined }));
    expect(body.prefillStatus).toBe('WAITING_FOR_MERCHANT');
    const page = await (await fetch(body.prefillUrl.replace(/^https?:\/\/[^/]+/, t.baseUrl))).text();
    expect(page).not.toContain('data-testid="ask-website"');
    expect(page).not.toContain('name="websiteUrl"');
    expect(page).toContain('Do you sell gift cards?');
    expect(page).toContain(`<dd data-testid="website">${WEBSITE.url}</dd>`);
    expect((await submitOnPage(body.prefillUrl)).status).toBe(400);
    expect((await submitOnPage(body.prefillUrl, { giftCards: 'none' })).status).toBe(200);
    expect((await mgmt(t.partner, 'GET', `/product-orders/${body.prefilledOrderId}`)).body.prefillStatus).toBe('COMPLETED');
  });

  test('WAITING_FOR_MERCHANT: the merchant enters the website on the page before it is accepted', async () => {
    const { body } = await order(orderBody({ website: undefined, complianceData: undefined }));
    expect((await submitOnPage(body.prefillUrl)).status).toBe(400);
    const page = await (await fetch(body.prefillUrl.replace(/^https?:\/\/[^/]+/, t.baseUrl))).text();
    expect(page).toContain('data-testid="ask-website"');
    expect(page).toContain('data-testid="ask-compliance"');
    const website = { websiteUrl: 'https://nyttfirma.no', termsUrl: 'https://nyttfirma.no/terms' };
    expect((await submitOnPage(body.prefillUrl, website)).status).toBe(400);
    const ok = await submitOnPage(body.prefillUrl, { ...website, giftCards: 'under10' });
    expect(ok.status).toBe(200);
    expect((await mgmt(t.partner, 'GET', `/product-orders/${body.prefilledOrderId}`)).body.prefillStatus).toBe('COMPLETED');
  });

  test('a cross-site form post is refused', async () => {
    const { body } = await order(orderBody());
    const token = new URL(body.prefillUrl).searchParams.get('token')!;
    const res = await fetch(`${t.baseUrl}/merchant-portal/prefill/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(res.status).toBe(403);
    expect((await mgmt(t.partner, 'GET', `/product-orders/${body.prefilledOrderId}`)).body.prefillStatus).toBe('RECEIVED');
  });
});

describe('events: each change of an order commits with its one event, read by the partner in the graph', () => {
  const EVENTS = `query($after: String) { viewer { partner { productOrderEvents(first: 100, after: $after) {
    edges { node { name prefilledOrderId prefillStatus msn occurredAt } } pageInfo { hasNextPage endCursor } } } } }`;
  type Event = { name: string; prefilledOrderId: string; prefillStatus: string | null; msn: string | null };

  /** Every event of the partner's orders, oldest first, page by page as a client reads them. */
  async function partnerEvents(): Promise<Event[]> {
    const events: Event[] = [];
    let after: string | null = null;
    for (;;) {
      const res = await t.partner.forSalesUnit('123456').graphql(EVENTS, { after });
      expect(res.body.errors).toBeUndefined();
      const page = res.body.data.viewer.partner.productOrderEvents;
      events.push(...page.edges.map((e: { node: Event }) => e.node));
      if (!page.pageInfo.hasNextPage) return events;
      after = page.pageInfo.endCursor;
    }
  }
  const eventsOf = async (id: string) => (await partnerEvents()).filter((e) => e.prefilledOrderId === id);
  const name = (n: string) => `management.product-order.${n}.v1`;

  test('create: one created event; a replay of the key records none', async () => {
    const key = randomUUID();
    const { body } = await order(orderBody(), key);
    expect(await eventsOf(body.prefilledOrderId)).toEqual([
      {
        name: name('created'),
        prefilledOrderId: body.prefilledOrderId,
        prefillStatus: 'RECEIVED',
        msn: null,
        occurredAt: expect.any(String),
      },
    ]);
    expect((await order(orderBody(), key)).status).toBe(201);
    expect(await eventsOf(body.prefilledOrderId)).toHaveLength(1);
  });

  test('a refused create records no event: a malformed body, and refusals of the registry and the price package', async () => {
    const before = (await partnerEvents()).length;
    // Refused by the body's rules, before the transaction; then inside it, by the registry and the price package.
    expect((await order(orderBody({ salesUnitName: '' }))).status).toBe(400);
    expect((await order(orderBody({ businessIdentifier: { scheme: 'business:NO:ORG', id: '920000061' } }))).status).toBe(400);
    expect((await order(orderBody({ pricePackageId: randomUUID() }))).status).toBe(400);
    expect((await partnerEvents()).length).toBe(before);
  });

  test('undo: one undone event, and the undone order is gone but its history is not', async () => {
    const { body } = await order(orderBody());
    expect((await mgmt(t.partner, 'DELETE', `/product-orders/${body.prefilledOrderId}`)).status).toBe(200);
    expect((await eventsOf(body.prefilledOrderId)).map((e) => [e.name, e.prefillStatus])).toEqual([
      [name('created'), 'RECEIVED'],
      [name('undone'), null],
    ]);
    // A refused undo (already undone: 404) records nothing.
    expect((await mgmt(t.partner, 'DELETE', `/product-orders/${body.prefilledOrderId}`)).status).toBe(404);
    expect(await eventsOf(body.prefilledOrderId)).toHaveLength(2);
  });

  test('submit of an order handled by hand: one submitted event; a refused submit records none', async () => {
    const { body } = await order(orderBody({ productType: 'SVC_CHECKOUT', pricePackageId: undefined }));
    expect((await submitOnPage(body.prefillUrl)).status).toBe(200);
    expect((await eventsOf(body.prefilledOrderId)).map((e) => [e.name, e.prefillStatus])).toEqual([
      [name('created'), 'RECEIVED'],
      [name('submitted'), 'PROCESSING'],
    ]);
    expect((await submitOnPage(body.prefillUrl)).status).toBe(400);
    expect((await mgmt(t.partner, 'DELETE', `/product-orders/${body.prefilledOrderId}`)).status).toBe(409);
    expect(await eventsOf(body.prefilledOrderId)).toHaveLength(2);
  });

  test('submit of SVC_PA_NETT: submitted, then completed naming the new sales unit, in the one transaction', async () => {
    const { body } = await order(orderBody({ website: undefined, complianceData: undefined }));
    // Refused on the page until the merchant enters the website: no event.
    expect((await submitOnPage(body.prefillUrl)).status).toBe(400);
    const ok = await submitOnPage(body.prefillUrl, {
      websiteUrl: 'https://nyttfirma.no',
      termsUrl: 'https://nyttfirma.no/terms',
      giftCards: 'none',
    });
    const msn = /data-msn="(\d+)"/.exec(ok.html)?.[1];
    expect(await eventsOf(body.prefilledOrderId)).toEqual([
      {
        name: name('created'),
        prefilledOrderId: body.prefilledOrderId,
        prefillStatus: 'WAITING_FOR_MERCHANT',
        msn: null,
        occurredAt: expect.any(String),
      },
      {
        name: name('submitted'),
        prefilledOrderId: body.prefilledOrderId,
        prefillStatus: 'PROCESSING',
        msn: null,
        occurredAt: expect.any(String),
      },
      { name: name('completed'), prefilledOrderId: body.prefilledOrderId, prefillStatus: 'COMPLETED', msn, occurredAt: expect.any(String) },
    ]);
  });

  test("another partner's order events are not listed", async () => {
    const em = forkEm(t.app.app.services.orm);
    const id = randomUUID();
    await em.execute(`insert into partner (id, name, status, created_at) values ('100999', 'Annen Partner AS', 'ACTIVE', now())
      on conflict do nothing`);
    await em.execute(
      `insert into product_order (id, partner_id, org_number, product_type, status, needs_manual_entry, page_token, created_at)
       values (?, '100999', '920000029', 'SVC_PA_NETT', 'RECEIVED', false, ?, now())`,
      [id, randomUUID()],
    );
    await em.execute(
      `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at)
       values ('product-order', ?, '', 'management.product-order.created.v1', ?, now())`,
      [id, JSON.stringify({ prefilledOrderId: id, partnerId: '100999', prefillStatus: 'RECEIVED' })],
    );
    expect(await eventsOf(id)).toEqual([]);
  });
});

describe('the deprecated partner API', () => {
  const partnerApi = (client: PartnerClient, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
    client.request(method, `/partner-api${path}`, body, extra);

  function partnerOrder(overrides: Record<string, unknown> = {}) {
    const { businessIdentifier: _b, annualTurnover: _a, productUseCase: _u, ...rest } = orderBody();
    return { orgno: '920000029', ...rest, ...overrides };
  }

  test('order: 200 {prefilledOrderId, returnUrl}, a Deprecation header naming the replacement', async () => {
    const res = await partnerApi(t.partner, 'POST', '/v1/products/orders', partnerOrder({ annualTurnover: 9_000_000_000_000 }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ prefilledOrderId: expect.any(String), returnUrl: expect.any(String) });
    expect(res.headers.get('deprecation')).toBeTruthy();
    expect(res.headers.get('link')).toContain('/management/v1/product-orders');
    // The same order, read on the management interface.
    expect((await mgmt(t.partner, 'GET', `/product-orders/${res.body.prefilledOrderId}`)).body.prefillStatus).toBe('RECEIVED');
    // Sent without a use case, the order is for a website (partner-v2.yaml's default), as its page shows.
    const page = await (await fetch(res.body.returnUrl.replace(/^https?:\/\/[^/]+/, t.baseUrl))).text();
    expect(page).toContain('<dt>Used for</dt><dd>A website</dd>');
  });

  test('Idempotency-Key optional; when sent it replays and conflicts', async () => {
    const key = randomUUID();
    const first = await partnerApi(t.partner, 'POST', '/v1/products/orders', partnerOrder(), { 'Idempotency-Key': key });
    const again = await partnerApi(t.partner, 'POST', '/v1/products/orders', partnerOrder(), { 'Idempotency-Key': key });
    expect(again.body).toEqual(first.body);
    expect(
      (await partnerApi(t.partner, 'POST', '/v1/products/orders', partnerOrder({ salesUnitName: 'Other' }), { 'Idempotency-Key': key }))
        .status,
    ).toBe(409);
    const a = await partnerApi(t.partner, 'POST', '/v1/products/orders', partnerOrder());
    const b = await partnerApi(t.partner, 'POST', '/v1/products/orders', partnerOrder());
    expect(a.body.prefilledOrderId).not.toBe(b.body.prefilledOrderId);
  });

  test('400 for a malformed order, 422 for one that cannot be made', async () => {
    expect((await partnerApi(t.partner, 'POST', '/v1/products/orders', partnerOrder({ orgno: '92000002' }))).status).toBe(400);
    // A number is taken as its digits (issue 19), so only another type is malformed.
    expect((await partnerApi(t.partner, 'POST', '/v1/products/orders', partnerOrder({ orgno: true }))).status).toBe(400);
    for (const orgno of ['920000011', '920000061', '920000045', '920000053']) {
      expect([orgno, (await partnerApi(t.partner, 'POST', '/v1/products/orders', partnerOrder({ orgno }))).status]).toEqual([orgno, 422]);
    }
  });

  test('merchants/{orgno} and salesunits/{msn}', async () => {
    const merchant = await partnerApi(t.partner, 'GET', '/v0/merchants/920000002');
    expect(merchant.status).toBe(200);
    expect(merchant.body).toEqual({ msn: ['123456'] });
    expect(merchant.headers.get('deprecation')).toBeTruthy();
    const unit = await partnerApi(t.partner, 'GET', '/v0/salesunits/123456');
    expect(unit.body).toEqual({
      msn: '123456',
      name: expect.any(String),
      orgno: '920000002',
      additionalDetails: { skipLandingPage: false, isPureLogin: false, captureType: 'ReserveCapture', recurring: true },
    });
    expect((await partnerApi(t.partner, 'GET', '/v0/salesunits/112233')).status).toBe(404);
    expect((await partnerApi(t.partner, 'GET', '/v0/merchants/920000088')).status).toBe(404);
    expect((await fetch(`${t.baseUrl}/partner-api/v0/salesunits/123456`, { headers: SYSTEM_HEADERS })).status).toBe(401);
  });
});
