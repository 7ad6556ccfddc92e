import { randomUUID } from 'node:crypto';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { approveWithConsent } from '../support/user-consent.js';
import { pngImage } from '../orders/images.js';

let t: TestApp;
let merchant: MerchantClient;

/** More payments than the largest page asked for, so every page below is full and a next page exists. */
const SEEDED_PAYMENTS = 51;

beforeAll(async () => {
  // Background jobs (woken by every committed event) would add their own statements to the log.
  t = await startTestApp({ runJobs: false });
  merchant = new MerchantClient(t.baseUrl);
  for (let i = 0; i < SEEDED_PAYMENTS; i++) {
    const reference = await merchant.authorizedPayment(1_000);
    await merchant.modify(reference, 'capture', 500);
  }
  // The caller's client and sales unit are read once and cached: warm both faces so each count is the operation's own.
  await merchant.graphql('{ __typename }');
}, 60_000);
afterAll(() => t.close());

const PAGE_QUERY = `query Page($first: Int!) {
  payments(first: $first) {
    edges { node { reference state aggregate { capturedAmount { value } } events { edges { node { name amount { value } } } } } }
    pageInfo { hasNextPage }
  }
}`;

/**
 * What a modification runs on either face: begin, advisory lock on the idempotency key, idempotency lookup, then
 * its own writes, the idempotency record, commit.
 */
const CREATE_STATEMENTS = 7; // ... insert event, insert payment ...
const CAPTURE_STATEMENTS = 8; // ... locked payment read, update, insert event ...

const CREATE_MUTATION = `mutation($input: CreatePaymentInput!) {
  createPayment(input: $input) { payment { reference state } userErrors { code message } }
}`;
const CAPTURE_MUTATION = `mutation($input: CapturePaymentInput!) {
  capturePayment(input: $input) { payment { reference aggregate { capturedAmount { value } } } userErrors { code message } }
}`;

/** SQL statements one request runs, counted from the ORM's query log. */
async function statementsFor(run: () => Promise<unknown>): Promise<string[]> {
  const before = t.queries.length;
  await run();
  return t.queries.slice(before);
}

describe('SQL statements per operation', () => {
  test('a page of payments with their events costs the same statements for 1, 12 and 50 payments', async () => {
    const counts: number[] = [];
    for (const first of [1, 12, 50]) {
      const statements = await statementsFor(async () => {
        const res = await merchant.graphql(PAGE_QUERY, { first });
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.payments.edges).toHaveLength(first);
        expect(res.body.data.payments.pageInfo.hasNextPage).toBe(true);
        // Every payment of the page has its events (created, authorized, captured), loaded in the one batch.
        for (const edge of res.body.data.payments.edges) expect(edge.node.events.edges).toHaveLength(3);
      });
      counts.push(statements.length);
    }
    // One page, one batch of events, whatever the page size.
    expect(counts).toEqual([2, 2, 2]);
  });

  test('create runs the same statements on REST and on the graph', async () => {
    const rest = await statementsFor(async () => expect((await merchant.createPayment()).status).toBe(201));
    const graph = await statementsFor(async () => {
      const res = await merchant.graphql(CREATE_MUTATION, {
        input: {
          idempotencyKey: randomUUID(),
          reference: newReference(),
          amount: { value: 1_000, currency: 'NOK' },
          paymentMethod: 'WALLET',
          userFlow: 'WEB_REDIRECT',
          returnUrl: 'https://merchant.example/return',
        },
      });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.createPayment).toEqual({ payment: { reference: expect.any(String), state: 'CREATED' }, userErrors: [] });
    });
    expect(rest).toHaveLength(CREATE_STATEMENTS);
    // Not only as many: the very same statements, since both faces call the one service.
    expect(graph).toEqual(rest);
  });

  test('capture runs the same statements on REST and on the graph', async () => {
    const restReference = await merchant.authorizedPayment(1_000);
    const rest = await statementsFor(async () => expect((await merchant.modify(restReference, 'capture', 100)).status).toBe(200));
    const graphReference = await merchant.authorizedPayment(1_000);
    const graph = await statementsFor(async () => {
      const res = await merchant.graphql(CAPTURE_MUTATION, {
        input: { idempotencyKey: randomUUID(), reference: graphReference, amount: { value: 100, currency: 'NOK' } },
      });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.capturePayment).toEqual({
        payment: { reference: graphReference, aggregate: { capturedAmount: { value: 100 } } },
        userErrors: [],
      });
    });
    expect(rest).toHaveLength(CAPTURE_STATEMENTS);
    expect(graph).toEqual(rest);
  });
});

// issue 12: user profiles
describe('SQL statements of user profiles', () => {
  const PROFILE_PAGE = `query Page($first: Int!) {
    payments(first: $first) { edges { node { reference profile { sub userInfo { name accounts { accountNumber } } } } } }
  }`;

  test('a page of payments with their consented profiles costs the same statements for 1, 12 and 50 payments', async () => {
    // The newest 12 payments asked for a profile and were approved with consent; the rest were force approved.
    // (The test clock stands still unless moved: each moves it on, so the 12 are the newest.)
    for (let i = 0; i < 12; i++) {
      t.clock.advance(1_000);
      await approveWithConsent(merchant, 'name accountNumbers');
    }
    const counts: number[] = [];
    for (const first of [1, 12, 50]) {
      const statements = await statementsFor(async () => {
        const res = await merchant.graphql(PROFILE_PAGE, { first });
        expect(res.body.errors).toBeUndefined();
        const profiles = res.body.data.payments.edges.map((e: { node: { profile: { userInfo: unknown } } }) => e.node.profile.userInfo);
        expect(profiles.filter((p: unknown) => p !== null)).toHaveLength(Math.min(first, 12));
      });
      counts.push(statements.length);
    }
    // The page, then one batch each of consents, profiles and bank accounts.
    expect(counts).toEqual([4, 4, 4]);
  });

  test('userinfo reads the consents and the profile (and the accounts only when consented to)', async () => {
    // Ola: no consent of his asked for bank accounts, so none are read.
    const { sub, userToken } = await approveWithConsent(merchant, 'name', { phoneNumber: '98765432' });
    const bySub = await statementsFor(async () =>
      expect((await merchant.request('GET', `/vipps-userinfo-api/userinfo/${sub}`)).status).toBe(200),
    );
    expect(bySub).toHaveLength(2);
    const byUserToken = await statementsFor(async () => {
      const res = await merchant.raw('GET', '/vipps-userinfo-api/userinfo/', undefined, {
        Authorization: `Bearer ${userToken}`,
        'Ocp-Apim-Subscription-Key': 'test-key-123456',
      });
      expect(res.status).toBe(200);
    });
    // The client holding the subscription key, then the consent and the profile.
    expect(byUserToken).toHaveLength(3);
  });
});

// issue 9: orders
describe('SQL statements of orders', () => {
  const ORDER_PAGE = `query Page($first: Int!) {
    payments(first: $first) { edges { node { reference order { category { category imageId } images { imageId width } receipt { receiptNumber } } } } }
  }`;

  test("a page of payments with their orders (the dashboard's payment page) costs the same statements for 1, 12 and 50 payments", async () => {
    // The newest 12 payments have an order with a category, an image and a receipt.
    const image = pngImage(200, 200);
    expect(
      (
        await merchant.request('POST', '/order-management/v1/images', {
          imageId: 'count-image',
          src: image.toString('base64'),
          type: 'base64',
        })
      ).status,
    ).toBe(200);
    for (let i = 0; i < 12; i++) {
      t.clock.advance(1_000);
      const reference = await merchant.authorizedPayment(1_000);
      await merchant.request('PUT', `/order-management/v2/ecom/categories/${reference}`, {
        category: 'GENERAL',
        orderDetailsUrl: 'https://shop.example/o',
        imageId: 'count-image',
      });
      await merchant.request('POST', `/order-management/v2/ecom/receipts/${reference}`, {
        orderLines: [{ name: 'Socks', id: '1', totalAmount: 100, totalAmountExcludingTax: 80, totalTaxAmount: 20, taxPercentage: 25 }],
        bottomLine: { currency: 'NOK', receiptNumber: `r-${i}` },
      });
    }
    const counts: number[] = [];
    for (const first of [1, 12, 50]) {
      const statements = await statementsFor(async () => {
        const res = await merchant.graphql(ORDER_PAGE, { first });
        expect(res.body.errors).toBeUndefined();
        const orders = res.body.data.payments.edges.map((e: { node: { order: unknown } }) => e.node.order).filter(Boolean);
        expect(orders).toHaveLength(Math.min(first, 12));
        expect(orders[0].images).toEqual([{ imageId: 'count-image', width: 200 }]);
      });
      counts.push(statements.length);
    }
    // The page, then one batch of orders (category, image and receipt in one statement).
    expect(counts).toEqual([2, 2, 2]);
  });
});

// issue 9: QR
describe('SQL statements of QR codes', () => {
  test('a page of callback QRs costs one statement for 1 and 12 QRs; a callback QR put runs the same statements on both faces', async () => {
    for (let i = 0; i < 12; i++) {
      expect((await merchant.request('PUT', `/qr/v1/merchant-callback/count-${i}`, { locationDescription: `Till ${i}` })).status).toBe(200);
    }
    const counts: number[] = [];
    for (const first of [1, 12]) {
      const statements = await statementsFor(async () => {
        const res = await merchant.graphql(
          'query($f: Int!) { callbackQrs(first: $f) { edges { node { merchantQrId imageUrl qrContent } } } }',
          {
            f: first,
          },
        );
        expect(res.body.data.callbackQrs.edges).toHaveLength(first);
      });
      counts.push(statements.length);
    }
    expect(counts).toEqual([1, 1]);
    const rest = await statementsFor(async () =>
      expect((await merchant.request('PUT', '/qr/v1/merchant-callback/count-0', { locationDescription: 'Moved' })).status).toBe(200),
    );
    const graph = await statementsFor(async () => {
      const res = await merchant.graphql(
        'mutation { setCallbackQr(input: { merchantQrId: "count-0", locationDescription: "Moved" }) { callbackQr { merchantQrId } userErrors { code } } }',
      );
      expect(res.body.data.setCallbackQr.userErrors).toEqual([]);
    });
    expect(rest).toHaveLength(1);
    expect(graph).toEqual(rest);
  });
});
