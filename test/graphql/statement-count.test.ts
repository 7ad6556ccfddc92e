import { randomUUID } from 'node:crypto';
import { flushApiQuality } from '../../src/management/api-quality.counter.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { MerchantClient, newReference, paymentBody } from '../support/merchant-client.js';
import { pngImage } from '../support/images.js';
import { PspClient } from '../support/psp-client.js';
import { newIds } from '../psp/psp-fixture.js';

import { PartnerClient } from '../support/partner-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { approveWithConsent } from '../support/user-consent.js';
import { CheckoutClient } from '../checkout/support/checkout-client.js';

/** issue 10: the PSP's sales unit check (psp_merchant), the page, then one batch of logs. */
const PSP_PAGE_STATEMENTS = 3;
/**
 * issue 10: tenancy, then begin, the PSP sales unit rule (the PSP's registration and the unit's status), two
 * duplicate checks, the payment and event inserts, commit.
 */
const PSP_INITIATE_STATEMENTS = 9;

let t: TestApp;
let merchant: MerchantClient;

/** More payments than the largest page asked for, so every page below is full and a next page exists. */
const SEEDED_PAYMENTS = 51;

beforeAll(async () => {
  // Background jobs (woken by every committed event) and the instance's API quality flush would add their own
  // statements to the log; the flush is run by hand where a test counts it.
  t = await startTestApp({ runJobs: false, flushIntervalMs: 3_600_000 });
  merchant = new MerchantClient(t.baseUrl);
  for (let i = 0; i < SEEDED_PAYMENTS; i++) {
    const reference = await merchant.authorizedPayment(1_000);
    await merchant.modify(reference, 'capture', 500);
  }
  // The caller's client and sales unit are read once and cached: warm both faces so each count is the operation's own.
  await merchant.graphql('{ __typename }');
}, 120_000);
afterAll(() => t.close());

const PAGE_QUERY = `query Page($first: Int!) {
  payments(first: $first) {
    edges { node { reference state aggregate { capturedAmount { value } } events { edges { node { name amount { value } } } } } }
    pageInfo { hasNextPage }
  }
}`;

/**
 * Every statement sent counts, BEGIN and COMMIT included. issue 23: create is one statement, its own implicit
 * transaction (the key's lock and record lookup, the sales unit, the payment, its event, the key's record: see
 * payment-creation.statement.ts); it was 8, the floor (bench/minimal-create.ts) is 1.
 */
const CREATE_STATEMENTS = 1;
/**
 * What a modification runs on either face (issue 23, part 4: was 9 for a capture, then 4): the idempotency key's gate
 * with the payment locked and the ledger's terms (for a capture or refund) in one statement, sent with its BEGIN; the
 * payment's update, its event, the ledger row (capture, refund) and the key's record in one statement of CTEs, sent
 * with its COMMIT. On PGlite its transaction sends BEGIN and COMMIT itself, in-process. See
 * run-operation.ts and statement-transaction.ts.
 */
const MODIFICATION_STATEMENTS = 2;
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);

const CREATE_MUTATION = `mutation($input: CreatePaymentInput!) {
  createPayment(input: $input) { payment { reference state } userErrors { code message } }
}`;
const CAPTURE_MUTATION = `mutation($input: CapturePaymentInput!) {
  capturePayment(input: $input) { payment { reference aggregate { capturedAmount { value } } } userErrors { code message } }
}`;
const REFUND_MUTATION = `mutation($input: RefundPaymentInput!) {
  refundPayment(input: $input) { payment { reference aggregate { refundedAmount { value } } } userErrors { code message } }
}`;
const CANCEL_MUTATION = `mutation($input: CancelPaymentInput!) {
  cancelPayment(input: $input) { payment { reference aggregate { cancelledAmount { value } } } userErrors { code message } }
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
    expect(rest).toHaveLength(MODIFICATION_STATEMENTS);
    expect(graph).toEqual(rest);
  });

  test('refund and cancel run the same statements on REST and on the graph, as many as a capture', async () => {
    /** A payment captured in part, ready for a refund or a cancel of the rest. */
    const capturedInPart = async () => {
      const reference = await merchant.authorizedPayment(1_000);
      expect((await merchant.modify(reference, 'capture', 400)).status).toBe(200);
      return reference;
    };
    for (const verb of ['refund', 'cancel'] as const) {
      const restReference = await capturedInPart();
      const rest = await statementsFor(async () =>
        expect((await merchant.modify(restReference, verb, verb === 'refund' ? 100 : undefined)).status).toBe(200),
      );
      const graphReference = await capturedInPart();
      const graph = await statementsFor(async () => {
        const input = { idempotencyKey: randomUUID(), reference: graphReference };
        const res =
          verb === 'refund'
            ? await merchant.graphql(REFUND_MUTATION, { input: { ...input, amount: { value: 100, currency: 'NOK' } } })
            : await merchant.graphql(CANCEL_MUTATION, { input });
        expect(res.body.errors).toBeUndefined();
        const payload = res.body.data[`${verb}Payment`];
        expect(payload.userErrors).toEqual([]);
        expect(payload.payment.aggregate).toEqual(
          verb === 'refund' ? { refundedAmount: { value: 100 } } : { cancelledAmount: { value: 600 } },
        );
      });
      expect(rest).toHaveLength(MODIFICATION_STATEMENTS);
      expect(graph).toEqual(rest);
    }
  });

  test('a refused capture runs fewer statements, and a replay only the gate', async () => {
    const reference = await merchant.authorizedPayment(1_000);
    const key = randomUUID();
    // The gate with the locked payment, then the refusal recorded under the key's lock.
    const refused = await statementsFor(async () => expect((await merchant.modify(reference, 'capture', 5_000, key)).status).toBe(400));
    expect(refused).toHaveLength(MODIFICATION_STATEMENTS);
    expect(refused[1]).toMatch(/^insert into idempotency_record/);
    // The gate, which finds the record and locks no payment, then (on PostgreSQL) the COMMIT on its own.
    const replayed = await statementsFor(async () => expect((await merchant.modify(reference, 'capture', 5_000, key)).status).toBe(400));
    expect(replayed).toHaveLength(ON_POSTGRES ? 2 : 1);
    if (ON_POSTGRES) expect(replayed).toEqual([expect.stringMatching(/^begin;\n/), 'commit']);
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

  // issue 13: the settlement ledger. A report page is one statement that reads the rows of the ledger if the caller
  // covers it; the graph's pages and a page of payments with their ledger rows cost the same for any size.
  test('a report API page of transactions costs 1 statement, and an empty one 2', async () => {
    const headers = { Authorization: `Bearer ${await merchant.accessToken()}` };
    const ledgerId = (await merchant.raw('GET', '/settlement/v1/ledgers', undefined, headers)).body.items[0].ledgerId;
    const counts: number[] = [];
    for (const query of [`ledgerId=${ledgerId}&inPayout=1`, `ledgerId=${ledgerId}`]) {
      const statements = await statementsFor(async () =>
        expect((await merchant.raw('GET', `/report/v1/ledgertransactions?${query}`, undefined, headers)).status).toBe(200),
      );
      counts.push(statements.length);
    }
    // A page is one statement; an empty one (nothing in payout 1) reads the ledger again to refuse one not covered.
    expect(counts).toEqual([2, 1]);
    const list = await statementsFor(async () =>
      expect((await merchant.raw('GET', '/settlement/v1/ledgers', undefined, headers)).status).toBe(200),
    );
    expect(list).toHaveLength(1);
  });

  test("a graph page of a ledger's transactions with their payments costs the same statements for 1, 12 and 50 rows", async () => {
    const counts: number[] = [];
    for (const first of [1, 12, 50]) {
      const statements = await statementsFor(async () => {
        const res = await merchant.graphql(
          `query($first: Int!) { ledgers { edges { node { ledgerId prices { msn }
            transactions(first: $first) { edges { node { grossAmount fee ledger { ledgerId } payment { reference state } } } } } } } }`,
          { first },
        );
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.ledgers.edges[0].node.transactions.edges).toHaveLength(first);
      });
      counts.push(statements.length);
    }
    expect(new Set(counts).size).toBe(1);
    expect(counts[0]).toBe(4);
  });

  test('a page of payments with their ledger rows costs one statement more, for 1 or 50 payments', async () => {
    const counts: number[] = [];
    for (const first of [1, 50]) {
      const statements = await statementsFor(async () => {
        const res = await merchant.graphql(
          `query($first: Int!) { payments(first: $first) { edges { node { reference ledgerTransactions { grossAmount fee } } } } }`,
          { first },
        );
        expect(res.body.errors).toBeUndefined();
      });
      counts.push(statements.length);
    }
    expect(counts[0]).toBe(counts[1]);
  });
});

// issue 12: management
describe('SQL statements of the management graph and API quality', () => {
  const VIEWER_PAGE = `query Page($first: Int!) {
    viewer { merchants(first: $first) { edges { node { orgno salesUnits(first: 5) { edges { node { msn status configuration { captureType }
      apiQuality(first: 5) { edges { node { endpoint totalRequests } } }
      payments(first: 3) { edges { node { reference state } } } } } } } } } }
  }`;

  test('viewer -> merchants -> sales units -> payments costs the same statements for 1, 12 and 50 merchants', async () => {
    // 50 more merchants, each with a sales unit connected to the partner and consenting to share its data (else the
    // partner's list would not show it), and a payment in three of them.
    const em = forkEm(t.app.services.orm);
    for (let i = 1; i <= 50; i++) {
      const msn = String(500000 + i);
      const id = `0b0e8a5c-1f4e-4c57-9d1a-${String(500000 + i).padStart(12, '0')}`;
      await em.execute(`insert into merchant (id, name, org_number, created_at) values (?, ?, ?, now())`, [
        id,
        `Merchant ${i}`,
        String(930000000 + i),
      ]);
      await em.execute(
        `insert into sales_unit (msn, merchant_id, name, long_living_payments_allowed, created_at) values (?, ?, ?, false, now())`,
        [msn, id, `Unit ${i}`],
      );
      await em.execute(`insert into partner_sales_unit (partner_id, msn, merchant_consent, created_at) values ('100200', ?, true, now())`, [
        msn,
      ]);
    }
    const partner = new PartnerClient(t.baseUrl).forSalesUnit('500001');
    for (const msn of ['500001', '500002', '500003']) {
      const res = await partner
        .forSalesUnit(msn)
        .request('POST', '/epayment/v1/payments', paymentBody(), { 'Idempotency-Key': randomUUID() });
      expect(res.status).toBe(201);
    }
    // The list of all its merchants: the partner names no sales unit (naming one narrows it to that merchant).
    const asWhole = new PartnerClient(t.baseUrl);
    await asWhole.graphql('{ __typename }');
    const counts: number[] = [];
    for (const first of [1, 12, 50]) {
      const statements = await statementsFor(async () => {
        const res = await asWhole.graphql(VIEWER_PAGE, { first });
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.viewer.merchants.edges).toHaveLength(first);
      });
      counts.push(statements.length);
    }
    // The merchants, their units, the units' payments and the units' API quality: one statement each, whatever the
    // number of merchants and units (naming no MSN, the partner's context reads nothing).
    expect(counts).toEqual([4, 4, 4]);
  });

  test("the partner's and the merchant's own lists cost one statement each, whatever the page", async () => {
    const partner = new PartnerClient(t.baseUrl).forSalesUnit('123456');
    await partner.graphql('{ __typename }');
    const PARTNER_LISTS = `query($first: Int!) { viewer { partner { partnerId
      pricePackages(first: $first) { edges { node { pricePackageId } } }
      productOrderEvents(first: $first) { edges { node { name } } }
      connectedSalesUnits(first: $first) { edges { node { merchantConsent salesUnit { msn status } } } } } } }`;
    /** The statements the query costs at each page size. */
    const countsPerPage = async (client: { graphql: typeof merchant.graphql }, query: string) => {
      const counts: number[] = [];
      for (const first of [1, 50]) {
        const statements = await statementsFor(async () => expect((await client.graphql(query, { first })).body.errors).toBeUndefined());
        counts.push(statements.length);
      }
      return counts;
    };
    // The partner's connection to its MSN (read when the context is made), the partner, then one statement per list.
    expect(await countsPerPage(partner, PARTNER_LISTS)).toEqual([5, 5]);
    const MERCHANT_LISTS = `query($first: Int!) { viewer { merchant { orgno partnerConsents(first: $first) { edges { node { partnerId } } } } } }`;
    // The merchant, then its consents.
    expect(await countsPerPage(merchant, MERCHANT_LISTS)).toEqual([2, 2]);
  });

  test('a request pays no statement for API quality: counts are flushed later, many requests in one statement', async () => {
    const reference = await merchant.authorizedPayment(1_000);
    const read = await statementsFor(async () => expect((await merchant.getPayment(reference)).status).toBe(200));
    expect(read.filter((sql) => /api_quality/.test(sql))).toEqual([]);
    for (let i = 0; i < 5; i++) await merchant.getPayment(`missing-${i}-reference`);
    const flush = await statementsFor(() => flushApiQuality(t.app.services));
    expect(flush.filter((sql) => /api_quality_count/.test(sql))).toHaveLength(1);
  });
});

// issue 11: checkout sessions
describe('SQL statements of checkout sessions', () => {
  const SESSION_PAGE = `query Page($first: Int!) {
    checkoutSessions(first: $first) {
      edges { node { reference sessionState paymentDetails { state aggregate { capturedAmount { value } } } payment { reference state } } }
    }
  }`;

  test('a page of sessions with their live payment costs the same statements for 1, 6 and 12 sessions', async () => {
    const checkout = new CheckoutClient(t.baseUrl);
    for (let i = 0; i < 12; i++) {
      t.clock.advance(1_000);
      const created = await checkout.createSession({ logistics: null, configuration: { elements: 'PaymentOnly' } });
      const paid = await fetch(`${t.baseUrl}/checkout/page/pay?token=${encodeURIComponent(created.body.token)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'walletPhone=91234567',
      });
      expect(paid.status).toBe(200);
    }
    const counts: number[] = [];
    for (const first of [1, 6, 12]) {
      const statements = await statementsFor(async () => {
        const res = await merchant.graphql(SESSION_PAGE, { first });
        expect(res.body.errors).toBeUndefined();
        const nodes = res.body.data.checkoutSessions.edges.map((e: { node: any }) => e.node);
        expect(nodes).toHaveLength(first);
        for (const node of nodes)
          expect(node).toMatchObject({ sessionState: 'PaymentSuccessful', paymentDetails: { state: 'AUTHORIZED' } });
      });
      counts.push(statements.length);
    }
    // The page, then one batch of payments (shared by paymentDetails and payment).
    expect(counts).toEqual([2, 2, 2]);
  });

  test('the checkout API: create and poll run a fixed number of statements', async () => {
    const checkout = new CheckoutClient(t.baseUrl);
    await checkout.createSession(); // warm the client and sales unit caches, as the graph tests do
    const reference = newReference('co-count');
    const create = await statementsFor(async () => expect((await checkout.createSession({ transaction: { reference } })).status).toBe(200));
    const poll = await statementsFor(async () => expect((await checkout.getSession(reference)).status).toBe(200));
    // The client lookup, then begin, the sales unit rule, the payment-reference check, the event, the session, commit.
    expect(create).toHaveLength(7);
    // The client lookup and the session; a paid session adds its payment.
    expect(poll).toHaveLength(2);
    t.clock.advance(1_000); // so the paid session is the newest
    const token = (await checkout.createSession({ logistics: null, configuration: { elements: 'PaymentOnly' } })).body.token as string;
    const paid = await fetch(`${t.baseUrl}/checkout/page/pay?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'walletPhone=91234567',
    });
    expect(paid.status).toBe(200);
    const sessions = await merchant.graphql('{ checkoutSessions(first: 1) { edges { node { reference sessionState } } } }');
    const paidReference = sessions.body.data.checkoutSessions.edges[0].node.reference as string;
    const pollPaid = await statementsFor(async () =>
      expect((await checkout.getSession(paidReference)).body.sessionState).toBe('PaymentSuccessful'),
    );
    expect(pollPaid).toHaveLength(3);
  });
});

// issue 10: PSP payments and signup
describe('SQL statements of PSP payments', () => {
  const msnHeaders = { 'Merchant-Serial-Number': '112233' };
  const initBody = () => ({
    ...newIds(),
    amount: 1_000,
    currency: 'NOK',
    pspRedirectUrl: 'https://psp.example/r',
    makePaymentUrl: 'http://127.0.0.1:9/cb',
  });
  const PSP_PAGE = `query Page($first: Int!) {
    pspPayments(first: $first) { edges { node { pspTransactionId state summary { capturedAmount } log { operation } } } }
  }`;

  test('a page of PSP payments with their logs costs the same statements for 1, 12 and 30 payments', async () => {
    const psp = new PspClient(t.baseUrl);
    for (let i = 0; i < 31; i++) {
      t.clock.advance(1_000);
      expect((await psp.request('POST', '/psp/v3/psppayments/init', initBody(), msnHeaders)).status).toBe(200);
    }
    await psp.graphql('{ pspPayments(first: 1) { edges { cursor } } }', {}, msnHeaders);
    const counts: number[] = [];
    for (const first of [1, 12, 30]) {
      const statements = await statementsFor(async () => {
        const res = await psp.graphql(PSP_PAGE, { first }, msnHeaders);
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.pspPayments.edges).toHaveLength(first);
      });
      counts.push(statements.length);
    }
    expect(counts).toEqual([PSP_PAGE_STATEMENTS, PSP_PAGE_STATEMENTS, PSP_PAGE_STATEMENTS]);
  });

  test('initiate runs the same statements on REST and on the graph', async () => {
    const psp = new PspClient(t.baseUrl);
    await psp.request('POST', '/psp/v3/psppayments/init', initBody(), msnHeaders);
    const rest = await statementsFor(async () =>
      expect((await psp.request('POST', '/psp/v3/psppayments/init', initBody(), msnHeaders)).status).toBe(200),
    );
    const graph = await statementsFor(async () => {
      const res = await psp.graphql(
        'mutation($input: InitiatePspPaymentInput!) { initiatePspPayment(input: $input) { userErrors { code } } }',
        { input: initBody() },
        msnHeaders,
      );
      expect(res.body.data.initiatePspPayment.userErrors).toEqual([]);
    });
    expect(rest).toHaveLength(PSP_INITIATE_STATEMENTS);
    expect(graph).toHaveLength(rest.length);
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
