import { addBusinessDays, osloDate } from '../../src/ledgers/business-days.js';
import { MERCHANT_A, MERCHANT_B, MerchantClient } from '../support/merchant-client.js';
import { PartnerClient } from '../support/partner-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { forkEm } from '../../src/platform/db/orm.js';

/** The settlement ledger produced by the money flow, read through the report API and the graph. */
let t: TestApp;
let merchantA: MerchantClient;
let merchantB: MerchantClient;
let partner: PartnerClient;
let ledgerA: string;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  merchantA = new MerchantClient(t.baseUrl);
  merchantB = new MerchantClient(t.baseUrl, MERCHANT_B);
  partner = new PartnerClient(t.baseUrl, '123456');
  ledgerA = (await ledgersOf(merchantA)).items[0].ledgerId;
}, 120_000);
afterAll(() => t.close());

/** The report API takes the token alone (no subscription key, no sales unit). */
async function get(client: MerchantClient | PartnerClient, path: string) {
  return client.raw('GET', path, undefined, { Authorization: `Bearer ${await client.accessToken()}` });
}
async function ledgersOf(client: MerchantClient | PartnerClient, query = '') {
  const res = await get(client, `/settlement/v1/ledgers${query}`);
  expect(res.status).toBe(200);
  return res.body;
}
async function transactions(query: string, client: MerchantClient | PartnerClient = merchantA) {
  return get(client, `/report/v1/ledgertransactions?${query}`);
}

async function capturedPayment(value: number, capture = value): Promise<string> {
  const reference = await merchantA.authorizedPayment(value);
  expect((await merchantA.modify(reference, 'capture', capture)).status).toBe(200);
  return reference;
}

test("each seeded merchant has one ledger, in the definition's shape", async () => {
  const body = await ledgersOf(merchantA);
  expect(body).toEqual({
    cursor: '',
    items: [
      {
        ledgerId: expect.stringMatching(/^[0-9]+$/),
        currency: 'NOK',
        payoutBankAccount: { scheme: 'BBAN:NO', id: '86011117947' },
        firstPayout: null,
        lastPayout: null,
        owner: { scheme: 'business:NO:ORG', id: '920000002' },
        settlesForRecipientHandles: ['api:123456'],
      },
    ],
  });
  expect((await ledgersOf(merchantB)).items.map((l: any) => l.settlesForRecipientHandles)).toEqual([['api:654321']]);
});

test('a capture appends a capture row (gross, the sales unit fee, gross - fee) in its own transaction', async () => {
  const reference = await capturedPayment(10_000, 6_000);
  const res = await transactions(`ledgerId=${ledgerA}`);
  expect(res.status).toBe(200);
  const row = res.body.items.find((i: any) => i.orderId === reference);
  // 123456 pays 1.75 % + 1.00 NOK: 6000 * 0.0175 = 105, + 100.
  expect(row).toEqual({
    transactionId: expect.stringMatching(/^[0-9]+$/),
    timestamp: expect.any(String),
    ledgerDate: osloDate(t.clock.now()),
    ledgerId: ledgerA,
    transactionType: 'capture',
    orderId: reference,
    currency: 'NOK',
    grossAmount: 6_000,
    fee: 205,
    ledgerAmount: 5_795,
    recipientHandle: 'api:123456',
  });
});

test('a refund appends a negative refund row without fee, dated two Norwegian business days later', async () => {
  const reference = await capturedPayment(20_000);
  expect((await merchantA.modify(reference, 'refund', 7_000)).status).toBe(200);
  const rows = (await transactions(`ledgerId=${ledgerA}`)).body.items.filter((i: any) => i.orderId === reference);
  expect(rows.map((r: any) => [r.transactionType, r.grossAmount, r.fee, r.ledgerAmount])).toEqual([
    ['capture', 20_000, 450, 19_550],
    ['refund', -7_000, 0, -7_000],
  ]);
  expect(rows[1].ledgerDate).toBe(addBusinessDays(osloDate(t.clock.now()), 2));
});

test('a refused capture leaves the ledger as it was', async () => {
  const reference = await merchantA.authorizedPayment(1_000);
  const before = (await transactions(`ledgerId=${ledgerA}`)).body.items.length;
  expect((await merchantA.modify(reference, 'capture', 5_000)).status).toBe(400);
  expect((await transactions(`ledgerId=${ledgerA}`)).body.items.length).toBe(before);
});

test('the spec path form answers like the public query form', async () => {
  const query = await transactions(`ledgerId=${ledgerA}`);
  const path = await get(merchantA, `/report/v1/ledgertransactions/${ledgerA}`);
  expect(path.status).toBe(200);
  expect(path.body).toEqual(query.body);
});

test('errors: a bad parameter is 400 with the report body, a bad token 401 {code, message}', async () => {
  const bad = await transactions(`ledgerId=${ledgerA}&ledgerDate=2026-13-01`);
  expect(bad.status).toBe(400);
  expect(bad.body).toEqual({ errorCode: 10002, errorMessage: expect.stringContaining('ledgerDate'), contextId: expect.any(String) });
  const missing = await transactions('');
  expect(missing.status).toBe(400);
  expect(missing.body.errorCode).toBe(10002);
  const unauthorized = await merchantA.raw('GET', '/settlement/v1/ledgers', undefined, { Authorization: 'Bearer nonsense' });
  expect(unauthorized.status).toBe(401);
  expect(unauthorized.body).toEqual({ code: 'Unauthorized', message: expect.any(String) });
  const none = await merchantA.raw('GET', '/settlement/v1/ledgers');
  expect(none.status).toBe(401);
});

test("another merchant's ledger is refused exactly like an unknown one", async () => {
  const other = await transactions(`ledgerId=${ledgerA}`, merchantB);
  const unknown = await transactions('ledgerId=999999999', merchantB);
  expect(other.status).toBe(404);
  expect(other.body.errorCode).toBe(10002);
  expect({ ...other.body, contextId: 'x' }).toEqual({ ...unknown.body, contextId: 'x' });
});

test('a partner reads the ledgers of connected merchants that consented, not the others', async () => {
  const body = await ledgersOf(partner);
  expect(body.items.map((l: any) => l.settlesForRecipientHandles)).toEqual([['api:123456']]);
  const ledgerB = (await ledgersOf(merchantB)).items[0].ledgerId;
  expect((await transactions(`ledgerId=${ledgerB}`, partner)).status).toBe(404);
  expect((await transactions(`ledgerId=${ledgerA}`, partner)).status).toBe(200);
});

test('a caller naming a sales unit (Merchant-Serial-Number) reads only the ledger settling for it', async () => {
  const res = await partner.raw('GET', '/settlement/v1/ledgers', undefined, {
    Authorization: `Bearer ${await partner.accessToken()}`,
    'Merchant-Serial-Number': '654321',
  });
  expect(res.body.items).toEqual([]);
});

test('settlesForRecipientHandles filters the ledgers', async () => {
  expect((await ledgersOf(merchantA, '?settlesForRecipientHandles=api:123456')).items).toHaveLength(1);
  expect((await ledgersOf(merchantA, '?settlesForRecipientHandles=api:654321')).items).toHaveLength(0);
  expect((await get(merchantA, '/settlement/v1/ledgers?settlesForRecipientHandles=garbage')).status).toBe(400);
});

test('the graph: ledgers, their transactions, a transaction links to its payment, a payment lists its rows', async () => {
  const reference = await capturedPayment(3_000);
  const res = await merchantA.graphql(
    `query($r: String!) {
      ledgers { edges { node { ledgerId prices { msn percentageFeeBasisPoints fixedFee }
        transactions(first: 100) { edges { node { transactionType grossAmount fee ledgerAmount orderId payment { reference } } } } } } }
      payment(reference: $r) { ledgerTransactions { transactionType grossAmount ledger { ledgerId } } }
    }`,
    { r: reference },
  );
  expect(res.body.errors).toBeUndefined();
  const ledger = res.body.data.ledgers.edges[0].node;
  expect(ledger.ledgerId).toBe(ledgerA);
  expect(ledger.prices).toEqual([{ msn: '123456', percentageFeeBasisPoints: 175, fixedFee: 100 }]);
  const row = ledger.transactions.edges.map((e: any) => e.node).find((n: any) => n.orderId === reference);
  expect(row).toEqual({
    transactionType: 'CAPTURE',
    grossAmount: 3_000,
    fee: 153,
    ledgerAmount: 2_847,
    orderId: reference,
    payment: { reference },
  });
  expect(res.body.data.payment.ledgerTransactions).toEqual([
    { transactionType: 'CAPTURE', grossAmount: 3_000, ledger: { ledgerId: ledgerA } },
  ]);
});

test("merchant B's graph sees no row of A's ledger", async () => {
  const res = await merchantB.graphql(
    `query($id: String!) { ledger(ledgerId: $id) { ledgerId } ledgers { edges { node { ledgerId } } } }`,
    {
      id: ledgerA,
    },
  );
  expect(res.body.data.ledger).toBeNull();
  expect(res.body.data.ledgers.edges.map((e: any) => e.node.ledgerId)).not.toContain(ledgerA);
  void MERCHANT_A;
});

test("a sales unit created at runtime gets its place in its merchant's ledger at its first capture, at the default price", async () => {
  // Set-up standing in for onboarding (another interface): a second sales unit of merchant A.
  const em = forkEm(t.app.services.orm);
  await em.execute(
    `insert into sales_unit (msn, merchant_id, name, long_living_payments_allowed, created_at)
     select '123457', merchant_id, 'Second shop', false, now() from sales_unit where msn = '123456'`,
  );
  const second = new MerchantClient(t.baseUrl, { ...MERCHANT_A, msn: '123457' });
  const reference = await second.authorizedPayment(10_000);
  expect((await second.modify(reference, 'capture', 10_000)).status).toBe(200);
  const ledger = (await ledgersOf(merchantA)).items[0];
  expect(ledger.ledgerId).toBe(ledgerA);
  expect(ledger.settlesForRecipientHandles).toEqual(['api:123456', 'api:123457']);
  const row = (await transactions(`ledgerId=${ledgerA}`)).body.items.find((i: any) => i.orderId === reference);
  expect(row).toEqual(expect.objectContaining({ recipientHandle: 'api:123457', grossAmount: 10_000, fee: 275, ledgerAmount: 9_725 }));
});
