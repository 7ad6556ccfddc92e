import { defaultQueryLimits } from '../../src/config.js';
import { MerchantClient } from '../support/merchant-client.js';
import { parse } from 'graphql';
import { measureDocument } from '../../src/platform/graph/query-limits.js';
import { fragmentFanOut } from '../support/fragment-fan-out.js';
import { readsPayments } from '../support/sql-log.js';
import { startProductionApp, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let merchant: MerchantClient;

// Small limits, so "at the limit" and "one past it" are both valid queries of this schema.
const limits = { ...defaultQueryLimits, maxDepth: 5, maxAliases: 30, maxCost: 31 };

beforeAll(async () => {
  // Jobs wait an hour, so the statement log shows only what each request ran.
  t = await startTestApp({ graphqlLimits: limits, jobIntervalMs: 3_600_000 });
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const DEPTH_5 = '{ payments(first: 1) { edges { node { amount { value } } } } }';
const DEPTH_6 = '{ payments(first: 1) { edges { node { aggregate { capturedAmount { value } } } } } }';

/**
 * `count` aliases at a cost of `count`: one payment lookup (cost 2, two aliases) and `count - 2` aliased leaves. The
 * lookup reads the payment table when it runs, so a refusal can show that nothing ran.
 */
function queryWithAliases(count: number): string {
  const leaves = Array.from({ length: count - 2 }, (_, i) => `a${i}: __typename`).join(' ');
  return `{ p: payment(reference: "no-such-reference") { r: reference } ${leaves} }`;
}

/** payments costs 1 + first * 3 (edges 1 + node 1 + reference 1); 10 is exactly the limit of 31. */
const COST_31 = '{ payments(first: 10) { edges { node { reference } } } }';
/** The same and one root scalar: exactly one past the limit. */
const COST_32 = '{ __typename payments(first: 10) { edges { node { reference } } } }';

/** Served without errors, and the payment table was read: the matcher `expectRefused` relies on does see reads. */
async function expectServed(query: string): Promise<void> {
  const before = t.queries.length;
  const res = await merchant.graphql(query);
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  expect(readsPayments(t.queries.slice(before))).toBe(true);
}

/** Refused with exactly this one validation error, before any resolver ran. */
async function expectRefused(query: string, message: RegExp): Promise<void> {
  const before = t.queries.length;
  const res = await merchant.graphql(query);
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual([
    expect.objectContaining({ message: expect.stringMatching(message), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
  ]);
  expect(res.body.data).toBeUndefined();
  // Rejected during validation: not one payment was read.
  expect(readsPayments(t.queries.slice(before))).toBe(false);
}

describe('graph limits on HTTP', () => {
  test('depth at the limit passes, one past it is refused', async () => {
    await expectServed(DEPTH_5);
    await expectRefused(DEPTH_6, /^Query depth 6 exceeds the limit of 5$/);
  });

  test('depth counts through fragments', async () => {
    const viaFragment = `{ payments(first: 1) { ...Edges } } fragment Edges on PaymentConnection { edges { node { aggregate { capturedAmount { value } } } } }`;
    await expectRefused(viaFragment, /^Query depth 6 exceeds the limit of 5$/);
  });

  test('aliases at the limit pass, one past it is refused', async () => {
    await expectServed(queryWithAliases(30));
    // Costs 31, at the cost limit: the alias limit alone refuses it.
    await expectRefused(queryWithAliases(31), /^31 aliases exceed the limit of 30$/);
  });

  test('cost at the limit passes, one past it is refused', async () => {
    await expectServed(COST_31);
    await expectRefused(COST_32, /^Query cost 32 exceeds the limit of 31$/);
  });

  test('a page size given as a variable counts as the largest page', async () => {
    const res = await merchant.graphql('query($n: Int!) { payments(first: $n) { edges { node { reference } } } }', { n: 1 });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/Query cost 301 exceeds/);
  });
});

describe('a document cannot make the limits walk more than its size', () => {
  test('the cost rule walks each fragment once, however often it is spread', () => {
    const { operations, fragmentWalks } = measureDocument(parse(fragmentFanOut(24)));
    // F0 … F24: 25 fragments, each walked once; their measures are reused at the 2^24 spreads of the last one.
    expect(fragmentWalks).toBe(25);
    expect(operations.get('FanOut')).toEqual({ depth: 1, aliases: 0, cost: 2 ** 24 });
  });

  test('the 24-level fragment fan-out is refused for its cost, before any resolver runs', async () => {
    await expectRefused(fragmentFanOut(24), /^Query cost 16777216 exceeds the limit of 31$/);
    // Another client is served as before.
    await expectServed(COST_31);
  });

  test('a document selecting more fields than the cap is refused before validation; one at the cap reaches validation', async () => {
    // Leaves of one name: no repeated selection with a selection of its own, within the token and byte caps.
    const typenames = (n: number) => `{ ${'__typename '.repeat(n)}}`;
    // At the cap the bound lets it through, and validation weighs it (this file's cost limit is small).
    const atCap = await merchant.graphql(typenames(defaultQueryLimits.maxFields));
    expect(atCap.body.errors).toEqual([
      expect.objectContaining({
        message: `Query cost ${defaultQueryLimits.maxFields} exceeds the limit of ${limits.maxCost}`,
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      }),
    ]);
    const pastCap = await merchant.graphql(typenames(defaultQueryLimits.maxFields + 1));
    expect(pastCap.status).toBe(400);
    expect(pastCap.body).toEqual({
      errors: [
        {
          message: `The document selects more than ${defaultQueryLimits.maxFields} fields (a fragment counts each time it is spread)`,
          extensions: { code: 'DOCUMENT_TOO_COMPLEX' },
        },
      ],
    });
  });

  test('a document past the token cap is refused by the parser, one past the byte cap before it', async () => {
    const fields = (n: number) => `{ ${Array.from({ length: n }, () => 'x').join(' ')} }`;
    const tooManyTokens = await merchant.graphql(fields(defaultQueryLimits.maxTokens));
    expect(tooManyTokens.status).toBe(400);
    expect(tooManyTokens.body.errors).toEqual([
      expect.objectContaining({
        // graphql-js's own message, typo included.
        message: expect.stringMatching(/more that 3000 tokens/),
        extensions: expect.objectContaining({ code: 'GRAPHQL_PARSE_FAILED' }),
      }),
    ]);
    const tooLarge = await merchant.graphql(`{ __typename }${' '.repeat(defaultQueryLimits.maxDocumentBytes)}`);
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.errors).toEqual([
      expect.objectContaining({
        message: 'The document is larger than 32768 bytes',
        extensions: expect.objectContaining({ code: 'DOCUMENT_TOO_LARGE' }),
      }),
    ]);
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
    // Its jobs wait an hour too: nothing here is time-based work, and an idle app's ticks cost CPU in this worker.
    const prod = await startProductionApp({ jobIntervalMs: 3_600_000 });
    try {
      const client = new MerchantClient(prod.baseUrl);
      const introspection = await client.graphql('{ __schema { types { name } } }');
      expect(introspection.status).toBe(400);
      expect(introspection.body.errors[0].message).toMatch(/introspection/i);
      const typo = await client.graphql('{ paymnt(reference: "some-reference") { reference } }');
      expect(typo.body.errors[0].message).not.toMatch(/Did you mean/);
      const typoInTest = await merchant.graphql('{ paymnt(reference: "some-reference") { reference } }');
      expect(typoInTest.body.errors[0].message).toMatch(/Did you mean/);
      // Variables are checked against their types after validation, and graphql-js suggests enum values there too.
      const capture = 'mutation($i: CapturePaymentInput!) { capturePayment(input: $i) { userErrors { code } } }';
      const input = { i: { idempotencyKey: 'k', reference: 'r', amount: { value: 1, currency: 'NOKK' } } };
      const enumTypo = await client.graphql(capture, input);
      expect(enumTypo.status).toBe(400);
      expect(enumTypo.body.errors[0].message).toMatch(/"NOKK"/);
      expect(enumTypo.body.errors[0].message).not.toMatch(/Did you mean/);
      expect((await merchant.graphql(capture, input)).body.errors[0].message).toMatch(/Did you mean the enum value "NOK"/);
    } finally {
      await prod.close();
    }
  });
});
