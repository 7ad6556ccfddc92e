import { MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  // Background jobs (woken by every committed event) would add their own statements to the log.
  t = await startTestApp({ runJobs: false });
  merchant = new MerchantClient(t.baseUrl);
  for (let i = 0; i < 12; i++) {
    const reference = await merchant.authorizedPayment(1_000);
    await merchant.modify(reference, 'capture', 500);
  }
});
afterAll(() => t.close());

const PAGE_QUERY = `query Page($first: Int!) {
  payments(first: $first) {
    edges { node { reference state aggregate { capturedAmount { value } } events { edges { node { name amount { value } } } } } }
  }
}`;

/** SQL statements one request runs, counted from the ORM's query log. */
async function statementsFor(run: () => Promise<unknown>): Promise<string[]> {
  const before = t.queries.length;
  await run();
  return t.queries.slice(before);
}

describe('SQL statements per operation', () => {
  test('a page of payments with their events costs the same number of statements for 1, 5 and 12 payments', async () => {
    const counts: number[] = [];
    for (const first of [1, 5, 12]) {
      const statements = await statementsFor(async () => {
        const res = await merchant.graphql(PAGE_QUERY, { first });
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.payments.edges).toHaveLength(first);
      });
      counts.push(statements.length);
    }
    // One for the sales unit's owner at most (cached after the first request), one page, one batch of events.
    expect(new Set(counts).size).toBe(1);
    expect(counts[0]).toBeLessThanOrEqual(2);
  });

  test('capture runs a bounded number of statements', async () => {
    const reference = await merchant.authorizedPayment(1_000);
    const statements = await statementsFor(() => merchant.modify(reference, 'capture', 100));
    // begin, advisory lock, idempotency lookup, locked payment read, update, event insert, record insert, commit.
    expect(statements.length).toBeLessThanOrEqual(8);
  });

  test('create runs a bounded number of statements', async () => {
    const statements = await statementsFor(() => merchant.createPayment());
    expect(statements.length).toBeLessThanOrEqual(7);
  });
});
