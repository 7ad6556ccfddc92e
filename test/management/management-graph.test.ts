import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { useTestApp } from '../support/app-fixture.js';
import { flushApiQuality } from '../../src/management/api-quality.counter.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { PspClient, TEST_PSP } from '../support/psp-client.js';
import { mgmt, orderBody, png, PRICE_PACKAGE_I_KASSA, PRICE_PACKAGE_PA_NETT } from './management-support.js';

// Several helpers share the machine's two cores: a request can take seconds.
jest.setTimeout(30_000);
const t = useTestApp({ runJobs: false });

const VIEWER = `{
  viewer {
    kind
    merchant { orgno name }
    partner { partnerId name connectedSalesUnits { edges { node { merchantConsent salesUnit { msn } } } } }
    merchants(first: 10) {
      edges { node { orgno name status salesUnits { edges { node { msn name status orgno configuration { paymentAllowed captureType }
        payments(first: 2) { edges { node { reference state } } } } } } } }
    }
  }
}`;

describe('viewer', () => {
  test('a merchant: itself, its units and their payments', async () => {
    const created = await t.merchant.createPayment();
    expect(created.status).toBe(201);
    const res = await t.merchant.graphql(VIEWER);
    expect(res.body.errors).toBeUndefined();
    const viewer = res.body.data.viewer;
    expect(viewer.kind).toBe('MERCHANT');
    expect(viewer.merchant).toEqual({ orgno: '920000002', name: 'Testbutikk AS' });
    expect(viewer.partner).toBeNull();
    expect(viewer.merchants.edges).toHaveLength(1);
    const unit = viewer.merchants.edges[0].node.salesUnits.edges[0].node;
    expect(unit).toEqual(
      expect.objectContaining({
        msn: '123456',
        status: 'ACTIVE',
        orgno: '920000002',
        configuration: { paymentAllowed: true, captureType: 'ReserveCapture' },
      }),
    );
    expect(unit.payments.edges[0].node.reference).toBe(created.body.reference);
  });

  test('a partner: its connected units with the consent state, their merchants, no one else’s', async () => {
    const res = await t.partner.forSalesUnit('123456').graphql(VIEWER);
    expect(res.body.errors).toBeUndefined();
    const viewer = res.body.data.viewer;
    expect(viewer.kind).toBe('PARTNER');
    expect(viewer.merchant).toBeNull();
    expect(viewer.partner.partnerId).toBe('100200');
    expect(viewer.partner.connectedSalesUnits.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { merchantConsent: true, salesUnit: { msn: '123456' } },
      { merchantConsent: false, salesUnit: { msn: '654321' } },
    ]);
    // Acting for 123456, the partner reads that merchant alone (the merchant of 654321 has not consented anyway).
    expect(viewer.merchants.edges.map((e: { node: { orgno: string } }) => e.node.orgno)).toEqual(['920000002']);
  });

  test('a PSP: itself, the merchants it signed up and their units, no one else’s', async () => {
    // A PSP names the sales unit it acts for on graph requests, as a partner does.
    const res = await new PspClient(t.baseUrl).graphql(
      `{ viewer { kind pspId merchant { orgno } partner { partnerId }
      merchants(first: 10) { edges { node { orgno name salesUnits { edges { node { msn orgno } } } } } } } }`,
      {},
      { 'Merchant-Serial-Number': TEST_PSP.merchantMsn },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.viewer).toEqual({
      kind: 'PSP',
      pspId: TEST_PSP.pspId,
      merchant: null,
      partner: null,
      merchants: {
        edges: [
          {
            node: {
              orgno: '920000088',
              name: 'PSP-kunde AS',
              salesUnits: { edges: [{ node: { msn: TEST_PSP.merchantMsn, orgno: '920000088' } }] },
            },
          },
        ],
      },
    });
    // A merchant is not a PSP.
    const merchant = await t.merchant.graphql('{ viewer { kind pspId } }');
    expect(merchant.body.data.viewer).toEqual({ kind: 'MERCHANT', pspId: null });
  });

  test('keyset pages: merchants one at a time with cursors', async () => {
    // Two merchants whose data the partner reads: B consents for the length of this test.
    const consent = (verb: 'give' | 'withdraw') =>
      t.otherMerchant.graphql(`mutation { ${verb}MerchantConsent(input: { partnerId: "100200" }) { userErrors { code } } }`);
    expect((await consent('give')).body.errors).toBeUndefined();
    try {
      const partner = t.partner;
      const first = await partner.graphql(
        `{ viewer { merchants(first: 1) { edges { node { orgno } cursor } pageInfo { hasNextPage endCursor } } } }`,
      );
      const page = first.body.data.viewer.merchants;
      expect(page.edges.map((e: { node: { orgno: string } }) => e.node.orgno)).toEqual(['920000002']);
      expect(page.pageInfo.hasNextPage).toBe(true);
      const second = await partner.graphql(
        `query($after: String) { viewer { merchants(first: 1, after: $after) { edges { node { orgno } } pageInfo { hasNextPage } } } }`,
        {
          after: page.pageInfo.endCursor,
        },
      );
      expect(second.body.data.viewer.merchants).toEqual({ edges: [{ node: { orgno: '920000010' } }], pageInfo: { hasNextPage: false } });
      const bad = await partner.graphql(`{ viewer { merchants(after: "nonsense") { edges { cursor } } } }`);
      expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    } finally {
      await consent('withdraw');
    }
  });

  test('partner: product orders and price packages', async () => {
    const created = await mgmt(t.partner, 'POST', '/product-orders', orderBody(), { 'Idempotency-Key': randomUUID() });
    const res = await t.partner.forSalesUnit('123456').graphql(`{ viewer { partner {
      productOrders(first: 5) { edges { node { prefilledOrderId prefillStatus orgno productType } } }
      pricePackages { edges { node { pricePackageId productType } } } } } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.viewer.partner.productOrders.edges[0].node).toEqual({
      prefilledOrderId: created.body.prefilledOrderId,
      prefillStatus: 'RECEIVED',
      orgno: '920000029',
      productType: 'SVC_PA_NETT',
    });
    expect(res.body.data.viewer.partner.pricePackages.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { pricePackageId: PRICE_PACKAGE_I_KASSA, productType: 'ePaymentCustomerPresent' },
      { pricePackageId: PRICE_PACKAGE_PA_NETT, productType: 'ePayment' },
    ]);
  });

  test('node(id:) finds a visible sales unit; another tenant’s is null', async () => {
    const id = Buffer.from('SalesUnit:654321').toString('base64url');
    const q = `query($id: ID!) { node(id: $id) { ... on SalesUnit { msn } } }`;
    expect((await t.merchant.graphql(q, { id })).body.data.node).toBeNull();
    expect((await t.otherMerchant.graphql(q, { id })).body.data.node).toEqual({ msn: '654321' });
    expect((await t.partner.graphql(q, { id })).body.data.node).toEqual({ msn: '654321' });
    expect((await t.partner.forSalesUnit('654321').graphql(q, { id })).body.data.node).toEqual({ msn: '654321' });
    // Acting for merchant A's unit, the partner reaches none of B's, as on REST.
    expect((await t.partner.forSalesUnit('123456').graphql(q, { id })).body.data.node).toBeNull();
  });
});

describe('the merchant’s consent, given and withdrawn in the graph', () => {
  const give = `mutation($p: String!) { giveMerchantConsent(input: { partnerId: $p }) { partnerConsent { partnerId partnerName merchantConsent } userErrors { code field } } }`;
  const withdraw = `mutation($p: String!) { withdrawMerchantConsent(input: { partnerId: $p }) { partnerConsent { merchantConsent } userErrors { code } } }`;

  test('merchant B gives consent: the partner reads its data; withdraws: 403 again', async () => {
    const partnerForB = t.partner.forSalesUnit('654321');
    expect((await mgmt(partnerForB, 'GET', '/merchants/920000010')).status).toBe(403);

    const given = await t.otherMerchant.graphql(give, { p: '100200' });
    expect(given.body.data.giveMerchantConsent).toEqual({
      partnerConsent: { partnerId: '100200', partnerName: 'Testpartner AS', merchantConsent: true },
      userErrors: [],
    });
    expect((await mgmt(partnerForB, 'GET', '/merchants/920000010')).status).toBe(200);
    const consents = await t.otherMerchant.graphql(
      `{ viewer { merchant { partnerConsents { edges { node { partnerId merchantConsent } } } } } }`,
    );
    expect(consents.body.data.viewer.merchant.partnerConsents.edges).toEqual([{ node: { partnerId: '100200', merchantConsent: true } }]);
    const seen = await partnerForB.graphql(
      `{ viewer { partner { connectedSalesUnits { edges { node { merchantConsent salesUnit { msn } } } } } } }`,
    );
    expect(seen.body.data.viewer.partner.connectedSalesUnits.edges[1].node).toEqual({
      merchantConsent: true,
      salesUnit: { msn: '654321' },
    });

    // issue 19: a contract link made while the consent holds is checked again when it is opened.
    const contracts = await mgmt(partnerForB, 'GET', '/merchants/920000010/contracts');
    expect(contracts.status).toBe(200);
    const link: string = contracts.body.urls[0];
    expect((await fetch(link)).status).toBe(200);

    const withdrawn = await t.otherMerchant.graphql(withdraw, { p: '100200' });
    expect(withdrawn.body.data.withdrawMerchantConsent).toEqual({ partnerConsent: { merchantConsent: false }, userErrors: [] });
    expect((await mgmt(partnerForB, 'GET', '/merchants/920000010')).status).toBe(403);
    expect((await fetch(link)).status).toBe(403);
    // Acting for the unit never needed the consent.
    expect((await mgmt(partnerForB, 'GET', '/sales-units/654321')).status).toBe(200);
  });

  test('each change records its event with the change', async () => {
    await t.otherMerchant.graphql(give, { p: '100200' });
    await t.otherMerchant.graphql(withdraw, { p: '100200' });
    const { forkEm } = await import('../../src/platform/db/orm.js');
    const rows = await forkEm(t.app.app.services.orm).execute<{ name: string }[]>(
      `select name from domain_event where stream_type = 'merchant-consent' and msn = '654321' order by id`,
    );
    expect(rows.slice(-2).map((r) => r.name)).toEqual(['management.merchant-consent.given.v1', 'management.merchant-consent.withdrawn.v1']);
  });

  test('an unconnected partner is a user error; a partner may not consent for a merchant', async () => {
    const res = await t.otherMerchant.graphql(give, { p: '999999' });
    expect(res.body.data.giveMerchantConsent).toEqual({
      partnerConsent: null,
      userErrors: [{ code: 'PARTNER_NOT_CONNECTED', field: 'partnerId' }],
    });
    const byPartner = await t.partner.forSalesUnit('654321').graphql(give, { p: '100200' });
    expect(byPartner.body.errors[0].extensions.code).toBe('FORBIDDEN_PRINCIPAL');
  });
});

describe('updateSalesUnit and apiQuality in the graph', () => {
  test('the same rules as PATCH', async () => {
    const m = `mutation($input: UpdateSalesUnitInput!) { updateSalesUnit(input: $input) { salesUnit { msn name status } userErrors { code field } } }`;
    const ok = await t.otherMerchant.graphql(m, { input: { msn: '654321', name: 'Graph Cafe' } });
    expect(ok.body.data.updateSalesUnit).toEqual({ salesUnit: { msn: '654321', name: 'Graph Cafe', status: 'ACTIVE' }, userErrors: [] });
    const long = await t.otherMerchant.graphql(m, { input: { msn: '654321', name: 'x'.repeat(51) } });
    expect(long.body.data.updateSalesUnit.userErrors).toEqual([{ code: 'VALIDATION_FAILED', field: 'name' }]);
    const other = await t.merchant.graphql(m, { input: { msn: '654321', name: 'Mine' } });
    expect(other.body.data.updateSalesUnit.userErrors).toEqual([{ code: 'SALES_UNIT_NOT_FOUND', field: 'msn' }]);
    // The service's rules, as PATCH meets them: every failing field at once, then an update of nothing.
    const both = await t.otherMerchant.graphql(m, { input: { msn: '654321', name: '', salesUnitLogo: await png(50, 50) } });
    expect(both.body.data.updateSalesUnit.userErrors).toEqual([
      { code: 'VALIDATION_FAILED', field: 'name' },
      { code: 'VALIDATION_FAILED', field: 'salesUnitLogo' },
    ]);
    const nothing = await t.otherMerchant.graphql(m, { input: { msn: '654321' } });
    expect(nothing.body.data.updateSalesUnit.userErrors).toEqual([{ code: 'SALES_UNIT_UPDATE_INVALID', field: 'body' }]);
  });

  test('apiQuality counts the requests made for the unit', async () => {
    await t.otherMerchant.getPayment('does-not-exist-1');
    const res = await t.otherMerchant.graphql(`{ viewer { merchants(first: 1) { edges { node { salesUnits(first: 1) { edges { node { msn
      apiQuality(first: 100) { edges { node { endpoint totalRequests successRate status404 } } } } } } } } } } }`);
    expect(res.body.errors).toBeUndefined();
    const items = res.body.data.viewer.merchants.edges[0].node.salesUnits.edges[0].node.apiQuality.edges.map(
      (e: { node: unknown }) => e.node,
    );
    expect(items).toContainEqual(
      expect.objectContaining({ endpoint: 'GET /epayment/v1/payments/{reference}', status404: expect.any(Number) }),
    );
  });
});

describe('every list is a keyset connection with signed cursors bound to its list', () => {
  type Page = { edges: { cursor: string; node: Record<string, unknown> }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  const ERROR = { message: 'after is not a cursor of this connection', extensions: { code: 'BAD_USER_INPUT', field: 'after' } };

  /** Reads a connection one node at a time (first: 1, after the last cursor) until the end. */
  async function oneByOne(read: (after: string | null) => Promise<Page>): Promise<Record<string, unknown>[]> {
    const nodes: Record<string, unknown>[] = [];
    let after: string | null = null;
    for (let i = 0; i < 50; i++) {
      const page = await read(after);
      expect(page.edges.length).toBeLessThanOrEqual(1);
      nodes.push(...page.edges.map((e) => e.node));
      if (!page.pageInfo.hasNextPage) return nodes;
      after = page.pageInfo.endCursor;
    }
    throw new Error('the connection did not end');
  }

  const partner = () => t.partner.forSalesUnit('123456');
  const PRICE_PACKAGES = `query($first: Int, $after: String) { viewer { partner {
    pricePackages(first: $first, after: $after) { edges { cursor node { pricePackageId } } pageInfo { hasNextPage endCursor } } } } }`;
  const pricePackages = async (after: string | null, first = 1) => {
    const res = await partner().graphql(PRICE_PACKAGES, { first, after });
    return res.body.errors ? res.body : (res.body.data.viewer.partner.pricePackages as Page);
  };
  const CONSENTS = `query($first: Int, $after: String) { viewer { merchant {
    partnerConsents(first: $first, after: $after) { edges { cursor node { partnerId partnerName merchantConsent } } pageInfo { hasNextPage endCursor } } } } }`;
  const consentsOfA = async (after: string | null, first = 1) => {
    const res = await t.merchant.graphql(CONSENTS, { first, after });
    return res.body.errors ? res.body : (res.body.data.viewer.merchant.partnerConsents as Page);
  };
  const API_QUALITY = `query($id: ID!, $first: Int, $after: String) { node(id: $id) { ... on SalesUnit {
    apiQuality(first: $first, after: $after) { edges { cursor node { endpoint totalRequests status200 status404 } } pageInfo { hasNextPage endCursor } } } } }`;
  const unitId = Buffer.from('SalesUnit:654321').toString('base64url');
  const apiQualityOfB = async (after: string | null, first = 1) => {
    const res = await t.otherMerchant.graphql(API_QUALITY, { id: unitId, first, after });
    return res.body.errors ? res.body : (res.body.data.node.apiQuality as Page);
  };

  test('Partner.pricePackages: one at a time by id, the same packages as one page', async () => {
    const first = (await pricePackages(null)) as Page;
    expect(first.edges.map((e) => e.node)).toEqual([{ pricePackageId: PRICE_PACKAGE_I_KASSA }]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (await pricePackages(first.pageInfo.endCursor)) as Page;
    expect(second.edges.map((e) => e.node)).toEqual([{ pricePackageId: PRICE_PACKAGE_PA_NETT }]);
    expect(second.pageInfo.hasNextPage).toBe(false);
    expect(await oneByOne(pricePackages)).toEqual(((await pricePackages(null, 100)) as Page).edges.map((e) => e.node));
  });

  test('Merchant.partnerConsents: one at a time by partner id, in one order on both databases', async () => {
    // Two more partners connected to merchant A's unit, with ids a locale collation would sort otherwise ("a" < "Z").
    const em = forkEm(t.app.app.services.orm);
    for (const [id, name] of [
      ['Zeta-1', 'Zeta Partner AS'],
      ['alpha-1', 'Alpha Partner AS'],
    ]) {
      await em.execute(`insert into partner (id, name, status, created_at) values (?, ?, 'ACTIVE', now()) on conflict do nothing`, [
        id,
        name,
      ]);
      await em.execute(
        `insert into partner_sales_unit (partner_id, msn, merchant_consent, created_at) values (?, '123456', false, now()) on conflict do nothing`,
        [id],
      );
    }
    const all = ((await consentsOfA(null, 100)) as Page).edges.map((e) => e.node);
    expect(all).toEqual([
      { partnerId: '100200', partnerName: 'Testpartner AS', merchantConsent: true },
      { partnerId: 'Zeta-1', partnerName: 'Zeta Partner AS', merchantConsent: false },
      { partnerId: 'alpha-1', partnerName: 'Alpha Partner AS', merchantConsent: false },
    ]);
    expect(await oneByOne(consentsOfA)).toEqual(all);
    // Tenancy as before: merchant B sees only its own unit's partner; a partner sees no merchant's consents.
    const ofB = await t.otherMerchant.graphql(CONSENTS, { first: 100 });
    expect(ofB.body.data.viewer.merchant.partnerConsents.edges.map((e: { node: { partnerId: string } }) => e.node.partnerId)).toEqual([
      '100200',
    ]);
    const byPartner = await partner().graphql(
      `{ viewer { merchants(first: 10) { edges { node { orgno partnerConsents(first: 10) { edges { node { partnerId } } } } } } } }`,
    );
    expect(byPartner.body.errors).toBeUndefined();
    for (const edge of byPartner.body.data.viewer.merchants.edges) expect(edge.node.partnerConsents.edges).toEqual([]);
  });

  test('SalesUnit.apiQuality: one endpoint at a time, stored and not yet flushed counts alike', async () => {
    await t.otherMerchant.getPayment('paging-missing-1');
    await t.otherMerchant.raw('GET', '/epayment/v1/payments/paging-missing-2', undefined, { 'Merchant-Serial-Number': '654321' });
    await mgmt(t.otherMerchant, 'GET', '/sales-units/654321');
    // Some counts stored, some only in memory: the pages are the same either way.
    await flushApiQuality(t.app.app.services);
    await mgmt(t.otherMerchant, 'GET', '/merchants/920000010/sales-units');
    const all = ((await apiQualityOfB(null, 100)) as Page).edges.map((e) => e.node);
    const endpoints = all.map((item) => item.endpoint as string);
    expect(endpoints.length).toBeGreaterThanOrEqual(3);
    expect(endpoints).toEqual([...endpoints].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(endpoints).toContain('GET /management/v1/merchants/{orgno}/sales-units');
    // Each graph request is counted too (it names the unit), so the pages are compared by endpoint.
    expect((await oneByOne(apiQualityOfB)).map((item) => item.endpoint)).toEqual(endpoints);
    // The same endpoints as the REST answer, in the same order.
    const rest = await mgmt(t.otherMerchant, 'GET', '/api-quality/sales-units/654321');
    expect(rest.body.ApiQualityItems.map((i: { endpoint: string }) => i.endpoint)).toEqual(endpoints);
    // Another merchant's unit stays out of reach: its node is null.
    expect((await t.merchant.graphql(API_QUALITY, { id: unitId, first: 1 })).body.data.node).toBeNull();
  });

  test('a changed, forged or unsigned cursor is refused', async () => {
    const cursor = ((await pricePackages(null)) as Page).pageInfo.endCursor!;
    const [body, mac] = cursor.split('.');
    const flipped = `${body!.slice(0, -1)}${body!.endsWith('A') ? 'B' : 'A'}.${mac}`;
    const forged = `${Buffer.from(JSON.stringify(['00000000-0000-0000-0000-000000000000'])).toString('base64url')}.${mac}`;
    const unsigned = body!;
    for (const after of [flipped, forged, unsigned, 'nonsense', `${cursor}.x`]) {
      expect([after, (await pricePackages(after)).errors]).toEqual([after, [expect.objectContaining(ERROR)]]);
    }
  });

  test('a cursor of another list is refused, even one of the same shape', async () => {
    const priceCursor = ((await pricePackages(null)) as Page).pageInfo.endCursor!;
    const consentCursor = ((await consentsOfA(null)) as Page).pageInfo.endCursor!;
    const apiCursor = ((await apiQualityOfB(null)) as Page).pageInfo.endCursor!;
    const orders = await partner().graphql(
      `{ viewer { partner { productOrders(first: 1) { pageInfo { endCursor } } connectedSalesUnits(first: 1) { pageInfo { endCursor } } } } }`,
    );
    const orderCursor = orders.body.data.viewer.partner.productOrders.pageInfo.endCursor as string;
    const unitCursor = orders.body.data.viewer.partner.connectedSalesUnits.pageInfo.endCursor as string;
    for (const after of [consentCursor, apiCursor, orderCursor])
      expect((await pricePackages(after)).errors).toEqual([expect.objectContaining(ERROR)]);
    for (const after of [priceCursor, apiCursor, unitCursor])
      expect((await consentsOfA(after)).errors).toEqual([expect.objectContaining(ERROR)]);
    for (const after of [priceCursor, consentCursor]) expect((await apiQualityOfB(after)).errors).toEqual([expect.objectContaining(ERROR)]);
    // A connected unit's cursor and a sales unit list's cursor both carry an MSN: the signature tells them apart.
    const merchantUnits = await partner().graphql(
      `query($after: String) { viewer { merchants(first: 1) { edges { node { salesUnits(first: 1, after: $after) { edges { node { msn } } } } } } } }`,
      { after: unitCursor },
    );
    expect(merchantUnits.body.errors).toEqual([expect.objectContaining(ERROR)]);
  });
});
