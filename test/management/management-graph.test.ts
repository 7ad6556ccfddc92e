import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { useTestApp } from '../support/app-fixture.js';
import { mgmt, orderBody } from './management-support.js';

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
    expect(viewer.merchants.edges.map((e: { node: { orgno: string } }) => e.node.orgno)).toEqual(['920000002', '920000010']);
  });

  test('keyset pages: merchants one at a time with cursors', async () => {
    const partner = t.partner.forSalesUnit('123456');
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
  });

  test('partner: product orders and price packages', async () => {
    const created = await mgmt(t.partner, 'POST', '/product-orders', orderBody(), { 'Idempotency-Key': randomUUID() });
    const res = await t.partner.forSalesUnit('123456').graphql(`{ viewer { partner {
      productOrders(first: 5) { edges { node { prefilledOrderId prefillStatus orgno productType } } }
      pricePackages { pricePackageId productType } } } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.viewer.partner.productOrders.edges[0].node).toEqual({
      prefilledOrderId: created.body.prefilledOrderId,
      prefillStatus: 'RECEIVED',
      orgno: '920000029',
      productType: 'SVC_PA_NETT',
    });
    expect(res.body.data.viewer.partner.pricePackages).toHaveLength(2);
  });

  test('node(id:) finds a visible sales unit; another tenant’s is null', async () => {
    const id = Buffer.from('SalesUnit:654321').toString('base64url');
    const q = `query($id: ID!) { node(id: $id) { ... on SalesUnit { msn } } }`;
    expect((await t.merchant.graphql(q, { id })).body.data.node).toBeNull();
    expect((await t.otherMerchant.graphql(q, { id })).body.data.node).toEqual({ msn: '654321' });
    expect((await t.partner.forSalesUnit('123456').graphql(q, { id })).body.data.node).toEqual({ msn: '654321' });
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
    const consents = await t.otherMerchant.graphql(`{ viewer { merchant { partnerConsents { partnerId merchantConsent } } } }`);
    expect(consents.body.data.viewer.merchant.partnerConsents).toEqual([{ partnerId: '100200', merchantConsent: true }]);
    const seen = await partnerForB.graphql(
      `{ viewer { partner { connectedSalesUnits { edges { node { merchantConsent salesUnit { msn } } } } } } }`,
    );
    expect(seen.body.data.viewer.partner.connectedSalesUnits.edges[1].node).toEqual({
      merchantConsent: true,
      salesUnit: { msn: '654321' },
    });

    const withdrawn = await t.otherMerchant.graphql(withdraw, { p: '100200' });
    expect(withdrawn.body.data.withdrawMerchantConsent).toEqual({ partnerConsent: { merchantConsent: false }, userErrors: [] });
    expect((await mgmt(partnerForB, 'GET', '/merchants/920000010')).status).toBe(403);
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
  });

  test('apiQuality counts the requests made for the unit', async () => {
    await t.otherMerchant.getPayment('does-not-exist-1');
    const res = await t.otherMerchant.graphql(`{ viewer { merchants { edges { node { salesUnits { edges { node { msn apiQuality {
      endpoint totalRequests successRate status404 } } } } } } } } }`);
    const items = res.body.data.viewer.merchants.edges[0].node.salesUnits.edges[0].node.apiQuality;
    expect(items).toContainEqual(
      expect.objectContaining({ endpoint: 'GET /epayment/v1/payments/{reference}', status404: expect.any(Number) }),
    );
  });
});
