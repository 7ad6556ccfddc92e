import { useTestApp } from '../support/app-fixture.js';
import { CheckoutClient, newSessionReference, sessionBody } from './support/checkout-client.js';
import { connectionParamsOf, eventually, Subscriber } from '../support/subscriber.js';

const t = useTestApp();

const CREATE = `mutation($input: CreateCheckoutSessionInput!) {
  createCheckoutSession(input: $input) {
    session { id sessionId reference sessionState amount { value currency } paymentDetails { state } payment { reference } }
    token checkoutFrontendUrl pollingUrl
    userErrors { code field message }
  }
}`;

const SESSION = `query($reference: String!) {
  checkoutSession(reference: $reference) { sessionId reference sessionState merchantSerialNumber checkoutFrontendUrl paymentDescription }
}`;

function graphInput(overrides: Record<string, unknown> = {}) {
  const body = sessionBody(overrides) as Record<string, any>;
  return body;
}

describe('the graph face of checkout sessions', () => {
  it('creates a session the REST face then reads, and reads a session REST created', async () => {
    const reference = newSessionReference();
    const res = await t.merchant.graphql(CREATE, { input: graphInput({ transaction: { reference } }) });
    expect(res.body.errors).toBeUndefined();
    const payload = res.body.data.createCheckoutSession;
    expect(payload.userErrors).toEqual([]);
    expect(payload.session).toMatchObject({
      reference,
      sessionState: 'SessionCreated',
      amount: { value: 2000, currency: 'NOK' },
      paymentDetails: null,
      payment: null,
    });
    expect(payload.pollingUrl).toBe(`${t.baseUrl}/checkout/v3/session/${reference}`);
    const rest = await new CheckoutClient(t.baseUrl).getSession(reference);
    expect(rest.status).toBe(200);
    expect(rest.body.sessionId).toBe(payload.session.sessionId);

    const other = newSessionReference();
    expect((await new CheckoutClient(t.baseUrl).createSession({ transaction: { reference: other } })).status).toBe(200);
    const read = await t.merchant.graphql(SESSION, { reference: other });
    expect(read.body.data.checkoutSession).toMatchObject({
      reference: other,
      sessionState: 'SessionCreated',
      merchantSerialNumber: '123456',
    });
    expect(read.body.data.checkoutSession.checkoutFrontendUrl).toMatch(/\/checkout\/page\?token=/);
  });

  it('refuses with the same rules and field names as REST, as userErrors', async () => {
    const res = await t.merchant.graphql(CREATE, {
      input: graphInput({
        transaction: { reference: 'short', paymentDescription: 'x' },
        logistics: { fixedOptions: [{ brand: 'OTHER', amount: { value: 1, currency: 'NOK' }, id: 'x', priority: 0, isDefault: false }] },
      }),
    });
    const errors = res.body.data.createCheckoutSession.userErrors;
    expect(errors.map((e: { field: string }) => e.field)).toEqual(
      expect.arrayContaining(['transaction.reference', 'transaction.paymentDescription', 'logistics.fixedOptions[0].title']),
    );
    expect(errors.every((e: { code: string }) => e.code === 'VALIDATION_FAILED')).toBe(true);
    const reference = newSessionReference();
    await t.merchant.graphql(CREATE, { input: graphInput({ transaction: { reference } }) });
    const again = await t.merchant.graphql(CREATE, { input: graphInput({ transaction: { reference } }) });
    expect(again.body.data.createCheckoutSession.userErrors[0]).toMatchObject({
      code: 'CHECKOUT_REFERENCE_ALREADY_USED',
      field: 'transaction.reference',
    });
  });

  it('takes carrier integrations and order lines as REST does, and refuses a bad integration the same way', async () => {
    const integrations = {
      porterbuddy: {
        publicToken: 'pt',
        apiKey: 'key',
        origin: {
          name: 'Shop',
          email: 'shop@example.com',
          phoneNumber: '4791234567',
          address: { streetAddress: 'Gate 1', postalCode: '0150', city: 'Oslo', country: 'NO' },
        },
      },
      helthjem: { username: 'u', password: 'p', shopId: 7 },
    };
    const transaction = {
      reference: newSessionReference(),
      orderSummary: {
        orderLines: [
          {
            name: 'Socks',
            id: 's1',
            totalAmount: 2000,
            totalAmountExcludingTax: 1600,
            totalTaxAmount: 400,
            taxPercentage: 25,
            unitInfo: { unitPrice: 1000, quantity: '2', quantityUnit: 'PCS' },
          },
        ],
        orderBottomLine: { currency: 'NOK' },
      },
    };
    const ok = await t.merchant.graphql(CREATE, { input: graphInput({ transaction, logistics: { integrations } }) });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.createCheckoutSession.userErrors).toEqual([]);
    const bad = await t.merchant.graphql(CREATE, {
      input: graphInput({
        logistics: {
          integrations: {
            ...integrations,
            porterbuddy: { ...integrations.porterbuddy, origin: { ...integrations.porterbuddy.origin, phoneNumber: 'x' } },
          },
        },
      }),
    });
    expect(bad.body.data.createCheckoutSession.userErrors[0]).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'logistics.integrations.porterbuddy.origin.phoneNumber',
    });
  });

  it("lists the merchant's sessions newest first by keyset; another merchant sees none of them", async () => {
    for (let i = 0; i < 3; i++) await t.merchant.graphql(CREATE, { input: graphInput() });
    const LIST = `query($after: String) { checkoutSessions(first: 2, after: $after) { edges { cursor node { id sessionId } } pageInfo { hasNextPage endCursor } } }`;
    const first = await t.merchant.graphql(LIST);
    expect(first.body.data.checkoutSessions.edges).toHaveLength(2);
    expect(first.body.data.checkoutSessions.pageInfo.hasNextPage).toBe(true);
    const second = await t.merchant.graphql(LIST, { after: first.body.data.checkoutSessions.pageInfo.endCursor });
    const ids = [...first.body.data.checkoutSessions.edges, ...second.body.data.checkoutSessions.edges].map((e: any) => e.node.sessionId);
    expect(new Set(ids).size).toBe(ids.length);
    const nodeId = first.body.data.checkoutSessions.edges[0].node.id;
    const node = await t.merchant.graphql(`query($id: ID!) { node(id: $id) { ... on CheckoutSession { sessionId } } }`, { id: nodeId });
    expect(node.body.data.node.sessionId).toBe(ids[0]);
    const foreign = await t.otherMerchant.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: nodeId });
    expect(foreign.body.data.node).toBeNull();
    const theirs = await t.otherMerchant.graphql(LIST);
    expect(theirs.body.data.checkoutSessions.edges).toEqual([]);
  });
});

describe('session events over graphql-ws', () => {
  it("a merchant sees its session's changes live; another merchant subscribed to the same reference sees nothing", async () => {
    const reference = newSessionReference();
    const query = `subscription($r: String) { checkoutSessionEvents(reference: $r) { name reference sessionState session { sessionState paymentDetails { state } } } }`;
    const own = new Subscriber<any>(t.baseUrl, await connectionParamsOf(t.merchant)).subscribe(query, { r: reference });
    const foreign = new Subscriber<any>(t.baseUrl, await connectionParamsOf(t.otherMerchant)).subscribe(query, { r: reference });
    try {
      await eventually(() => t.app.app.services.events.subscriberCount >= 2, 'both subscriptions to register');
      const created = await new CheckoutClient(t.baseUrl).createSession({
        transaction: { reference },
        logistics: null,
        configuration: { elements: 'PaymentOnly' },
      });
      await fetch(`${t.baseUrl}/checkout/page/cancel?token=${encodeURIComponent(created.body.token)}`, { method: 'POST' });
      const results = await own.waitFor(2);
      expect(results.map((r) => r.data.checkoutSessionEvents.sessionState)).toEqual(['SessionCreated', 'PaymentTerminated']);
      expect(results[0]!.data.checkoutSessionEvents).toMatchObject({ name: 'checkout.session.SessionCreated.v1', reference });
      expect(results[1]!.data.checkoutSessionEvents.session.sessionState).toBe('PaymentTerminated');
      expect(foreign.results).toEqual([]);
      expect(foreign.failure).toBeUndefined();
    } finally {
      await own.close();
      await foreign.close();
    }
  });
});
