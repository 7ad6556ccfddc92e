import { forkEm } from '../../src/db/orm.js';
import { seedTestEnvironment } from '../../src/seed/test-environment.seed.js';
import { MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let merchant: MerchantClient;

// Small limits, so "at the limit" and "one past it" are both valid queries of this schema.
const limits = { maxDepth: 5, maxAliases: 30, maxCost: 31 };

beforeAll(async () => {
  // Jobs wait an hour, so the statement log shows only what each request ran.
  t = await startTestApp({ graphqlLimits: limits, jobIntervalMs: 3_600_000 });
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const DEPTH_5 = '{ payments(first: 1) { edges { node { amount { value } } } } }';
const DEPTH_6 = '{ payments(first: 1) { edges { node { aggregate { capturedAmount { value } } } } } }';

function queryWithAliases(count: number): string {
  return `{ ${Array.from({ length: count }, (_, i) => `a${i}: __typename`).join(' ')} }`;
}

/** payments costs 1 + first * 3 (edges 1 + node 1 + reference 1). */
const queryOfPageSize = (first: number) => `{ payments(first: ${first}) { edges { node { reference } } } }`;

async function expectRefused(query: string, message: RegExp): Promise<void> {
  const before = t.queries.length;
  const res = await merchant.graphql(query);
  expect(res.status).toBe(400);
  expect(res.body.errors).toContainEqual(
    expect.objectContaining({ message: expect.stringMatching(message), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
  );
  expect(res.body.data).toBeUndefined();
  // Rejected during validation: not one payment was read.
  expect(t.queries.slice(before).some((sql) => sql.includes('from "payment"'))).toBe(false);
}

describe('graph limits on HTTP', () => {
  test('depth at the limit passes, one past it is refused', async () => {
    expect((await merchant.graphql(DEPTH_5)).body.errors).toBeUndefined();
    await expectRefused(DEPTH_6, /Query depth 6 exceeds the limit of 5/);
  });

  test('depth counts through fragments', async () => {
    const viaFragment = `{ payments(first: 1) { ...Edges } } fragment Edges on PaymentConnection { edges { node { aggregate { capturedAmount { value } } } } }`;
    await expectRefused(viaFragment, /Query depth 6/);
  });

  test('aliases at the limit pass, one past it is refused', async () => {
    expect((await merchant.graphql(queryWithAliases(30))).body.errors).toBeUndefined();
    await expectRefused(queryWithAliases(31), /31 aliases exceed the limit of 30/);
  });

  test('cost at the limit passes, one page more is refused', async () => {
    expect((await merchant.graphql(queryOfPageSize(10))).body.errors).toBeUndefined();
    await expectRefused(queryOfPageSize(11), /Query cost 34 exceeds the limit of 31/);
  });

  test('a page size given as a variable counts as the largest page', async () => {
    const res = await merchant.graphql('query($n: Int!) { payments(first: $n) { edges { node { reference } } } }', { n: 1 });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/Query cost 301 exceeds/);
  });
});

describe('CSRF prevention', () => {
  test('a GET query without a preflight-forcing header is refused', async () => {
    const res = await fetch(`${t.baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { ...(await merchant.headers()), 'Content-Type': 'text/plain' },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/CSRF/i);
  });
});

describe('production hides the schema', () => {
  test('introspection and field suggestions are off', async () => {
    const prod = await startTestApp({}, { PAYGRAPH_ENV: 'production', PAYGRAPH_TOKEN_SECRET: 'x'.repeat(40) });
    try {
      // Production seeds nothing; the credentials are put in its database as test set-up.
      await seedTestEnvironment(forkEm(prod.app.services.orm), new Date());
      const client = new MerchantClient(prod.baseUrl);
      const introspection = await client.graphql('{ __schema { types { name } } }');
      expect(introspection.status).toBe(400);
      expect(introspection.body.errors[0].message).toMatch(/introspection/i);
      const typo = await client.graphql('{ paymnt(reference: "some-reference") { reference } }');
      expect(typo.body.errors[0].message).not.toMatch(/Did you mean/);
      const typoInTest = await merchant.graphql('{ paymnt(reference: "some-reference") { reference } }');
      expect(typoInTest.body.errors[0].message).toMatch(/Did you mean/);
    } finally {
      await prod.close();
    }
  });
});
