import { forkEm } from '../../src/platform/db/orm.js';
import { MERCHANT_A, MERCHANT_B, MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Pages of at most 1000 rows, keyset cursors that are opaque, tamper-evident and bound to their query. */
let t: TestApp;
let merchant: MerchantClient;
let ledgerId: string;
const CAPTURES = 1_010;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  merchant = new MerchantClient(t.baseUrl);
  ledgerId = (await get('/settlement/v1/ledgers')).body.items[0].ledgerId;
  // Ten rows come from the money flow itself: ten payments captured through the API, one øre each.
  const payments = await Promise.all(Array.from({ length: 10 }, () => merchant.authorizedPayment(200)));
  for (const reference of payments) expect((await merchant.modify(reference, 'capture', 1)).status).toBe(200);
  // The other thousand are copies of them in one statement: what is tested is the paging of many rows, and 1,000
  // captures through the API took most of this file's time.
  await forkEm(t.app.services.orm).execute(
    `insert into ledger_transaction (ledger_id, transaction_type, occurred_at, ledger_date, order_id, payment_id,
       recipient_handle, currency, gross_amount, fee, ledger_amount, payout_id)
     select t.ledger_id, t.transaction_type, t.occurred_at, t.ledger_date, t.order_id, t.payment_id,
       t.recipient_handle, t.currency, t.gross_amount, t.fee, t.ledger_amount, t.payout_id
     from ledger_transaction t cross join generate_series(1, ?) as copy
     where t.ledger_id = (select ledger_id from ledger_sales_unit where msn = ?) order by copy, t.id`,
    [(CAPTURES - 10) / 10, MERCHANT_A.msn],
  );
});
afterAll(() => t.close());

async function get(path: string, client: MerchantClient = merchant) {
  return client.raw('GET', path, undefined, { Authorization: `Bearer ${await client.accessToken()}` });
}

test('1000 rows a page, then the rest by cursor alone; every row once, in ledger order; the last cursor is empty', async () => {
  const first = await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}`);
  expect(first.body.items).toHaveLength(1000);
  expect(first.body.cursor).not.toBe('');
  const second = await get(`/report/v1/ledgertransactions?cursor=${encodeURIComponent(first.body.cursor)}`);
  expect(second.status).toBe(200);
  expect(second.body.items).toHaveLength(CAPTURES - 1000);
  expect(second.body.cursor).toBe('');
  const ids = [...first.body.items, ...second.body.items].map((i: { transactionId: string }) => Number(i.transactionId));
  expect(new Set(ids).size).toBe(CAPTURES);
  expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  // With its ledgerId, the same.
  const again = await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}&cursor=${encodeURIComponent(first.body.cursor)}`);
  expect(again.body).toEqual(second.body);
});

test('the cursor keeps its filters; the same filter sent again is accepted, another one is refused', async () => {
  const date = (await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}`)).body.items[0].ledgerDate;
  const first = await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}&ledgerDate=${date}`);
  expect(first.body.cursor).not.toBe('');
  const cursor = encodeURIComponent(first.body.cursor);
  expect((await get(`/report/v1/ledgertransactions?cursor=${cursor}&ledgerDate=${date}`)).status).toBe(200);
  const other = await get(`/report/v1/ledgertransactions?cursor=${cursor}&ledgerDate=2020-01-01`);
  expect(other.status).toBe(400);
  expect(other.body).toEqual({ errorCode: 10002, errorMessage: expect.stringContaining('cursor'), contextId: expect.any(String) });
});

test('a tampered cursor, a cursor of another ledger or list, and garbage are refused with 400', async () => {
  const { cursor } = (await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}`)).body;
  const [body, mac] = cursor.split('.');
  const state = JSON.parse(Buffer.from(body, 'base64url').toString());
  const forged = Buffer.from(JSON.stringify({ ...state, afterId: 1 })).toString('base64url');
  const ledgerB = (await get('/settlement/v1/ledgers', new MerchantClient(t.baseUrl, MERCHANT_B))).body.items[0].ledgerId;
  for (const query of [
    `cursor=${forged}.${mac}`,
    `cursor=${encodeURIComponent(cursor)}x`,
    `cursor=garbage`,
    `ledgerId=${ledgerB}&cursor=${encodeURIComponent(cursor)}`,
  ]) {
    const res = await get(`/report/v1/ledgertransactions?${query}`);
    expect({ query, status: res.status, code: res.body.errorCode }).toEqual({ query, status: 400, code: 10002 });
  }
  expect((await get(`/settlement/v1/ledgers?cursor=${encodeURIComponent(cursor)}`)).status).toBe(400);
});

test('every filter: ledgerDate, from/to, inPayout, sincePayout', async () => {
  const all = (await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}`)).body.items;
  const date = all[0].ledgerDate;
  const count = async (query: string) => {
    let total = 0;
    let res = await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}&${query}`);
    expect(res.status).toBe(200);
    total += res.body.items.length;
    while (res.body.cursor) {
      res = await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}&cursor=${encodeURIComponent(res.body.cursor)}`);
      total += res.body.items.length;
    }
    return total;
  };
  expect(await count(`ledgerDate=${date}`)).toBe(CAPTURES);
  expect(await count(`fromLedgerDate=${date}&toLedgerDate=${date}`)).toBe(CAPTURES);
  expect(await count(`toLedgerDate=2020-01-01`)).toBe(0);
  expect(await count(`inPayout=2000001`)).toBe(0);
  expect(await count(`sincePayout=2000001`)).toBe(CAPTURES);
  expect((await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}&fromLedgerDate=2026-02-02&toLedgerDate=2026-02-01`)).status).toBe(
    400,
  );
  expect((await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}&inPayout=abc`)).status).toBe(400);
});

test('the graph pages the same rows with Relay keyset cursors', async () => {
  const query = `query($id: String!, $after: String) { ledger(ledgerId: $id) {
    transactions(first: 100, after: $after) { edges { cursor node { transactionId } } pageInfo { hasNextPage endCursor } } } }`;
  const seen: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 20; page++) {
    const res = await merchant.graphql(query, { id: ledgerId, after });
    expect(res.body.errors).toBeUndefined();
    const connection = res.body.data.ledger.transactions;
    seen.push(...connection.edges.map((e: { node: { transactionId: string } }) => e.node.transactionId));
    if (!connection.pageInfo.hasNextPage) break;
    after = connection.pageInfo.endCursor;
  }
  expect(seen).toHaveLength(CAPTURES);
  const rest = (await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}`)).body.items.map(
    (i: { transactionId: string }) => i.transactionId,
  );
  expect(seen.slice(0, 1000)).toEqual(rest);
  const bad = await merchant.graphql(query, { id: ledgerId, after: 'garbage' });
  expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
});

test('the graph filters transactions by the same rules as the report API', async () => {
  const date = (await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}`)).body.items[0].ledgerDate;
  const query = `query($id: String!, $filter: LedgerTransactionFilter) { ledger(ledgerId: $id) {
    transactions(first: 5, filter: $filter) { edges { node { ledgerDate transactionType } } pageInfo { hasNextPage } } } }`;
  const page = async (filter: Record<string, string>) => {
    const res = await merchant.graphql(query, { id: ledgerId, filter });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.ledger.transactions as { edges: { node: { ledgerDate: string } }[]; pageInfo: { hasNextPage: boolean } };
  };
  const filters: Record<string, string>[] = [
    { ledgerDate: date },
    { fromLedgerDate: date, toLedgerDate: date },
    { sincePayout: '2000001' },
  ];
  for (const filter of filters) {
    const shown = await page(filter);
    expect(shown.edges.map((e) => e.node.ledgerDate)).toEqual(Array(5).fill(date));
    expect(shown.pageInfo.hasNextPage).toBe(true);
  }
  const empty: Record<string, string>[] = [{ toLedgerDate: '2020-01-01' }, { inPayout: '2000001' }];
  for (const filter of empty) expect((await page(filter)).edges).toEqual([]);
});

test('a graph cursor is bound to its filter: the same filter pages on, another filter or none is refused', async () => {
  const date = (await get(`/report/v1/ledgertransactions?ledgerId=${ledgerId}`)).body.items[0].ledgerDate;
  const query = `query($id: String!, $filter: LedgerTransactionFilter, $after: String) { ledger(ledgerId: $id) {
    transactions(first: 5, filter: $filter, after: $after) { edges { node { transactionId } } pageInfo { endCursor } } } }`;
  const first = await merchant.graphql(query, { id: ledgerId, filter: { ledgerDate: date } });
  expect(first.body.errors).toBeUndefined();
  const after = first.body.data.ledger.transactions.pageInfo.endCursor;
  const same = await merchant.graphql(query, { id: ledgerId, filter: { ledgerDate: date }, after });
  expect(same.body.errors).toBeUndefined();
  expect(same.body.data.ledger.transactions.edges).toHaveLength(5);
  for (const filter of [{ sincePayout: '2000001' }, { ledgerDate: date, inPayout: '2000001' }, null]) {
    const other = await merchant.graphql(query, { id: ledgerId, filter, after });
    expect({ filter, errors: other.body.errors }).toEqual({
      filter,
      errors: [
        expect.objectContaining({
          message: 'after is not a cursor of this connection',
          extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
        }),
      ],
    });
  }
});
