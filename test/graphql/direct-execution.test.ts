import { defaultQueryLimits } from '../../src/config.js';
import { MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import type { HttpResult } from '../support/principal-client.js';

/**
 * POST /graphql serves plain operations from documents parsed and validated once per query text
 * (src/platform/graph/direct-execution.ts), and leaves the rest to Apollo Server. A body with `extensions` is not
 * plain, so the same operation with `"extensions": {}` is Apollo's answer: both must be the same answer.
 */
let t: TestApp;
let merchant: MerchantClient;

// A small depth limit, so a refused document is an ordinary query one level too deep.
const limits = { ...defaultQueryLimits, maxDepth: 5 };

beforeAll(async () => {
  t = await startTestApp({ graphqlLimits: limits, jobIntervalMs: 3_600_000 });
  merchant = new MerchantClient(t.baseUrl);
}, 60_000);
afterAll(() => t.close());

const PAYMENT = 'query Payment($r: String!) { payment(reference: $r) { reference state amount { value currency } } }';
const TOO_DEEP = '{ payments(first: 1) { edges { node { aggregate { capturedAmount { value } } } } } }';

async function direct(query: string, variables?: Record<string, unknown>): Promise<HttpResult> {
  return merchant.request('POST', '/graphql', { query, variables });
}

async function throughApollo(query: string, variables?: Record<string, unknown>): Promise<HttpResult> {
  return merchant.request('POST', '/graphql', { query, variables, extensions: {} });
}

/** What a client reads of an answer: status, content type, rate-limit policy and body. */
function answer(res: HttpResult) {
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    policy: res.headers.get('ratelimit-policy'),
    body: res.body as unknown,
  };
}

/** The `r` of the RateLimit field: the client's quota left. */
function remaining(res: HttpResult): number {
  const match = /;r=(\d+);/.exec(res.headers.get('ratelimit') ?? '');
  if (!match) throw new Error(`no RateLimit field in ${JSON.stringify(Object.fromEntries(res.headers))}`);
  return Number(match[1]);
}

test('one document, sent again with other variables, answers for each request’s own variables', async () => {
  const first = await merchant.authorizedPayment(1_000);
  const second = await merchant.authorizedPayment(2_000);
  const answers = [];
  for (const reference of [first, second, first, 'no-such-reference']) answers.push(await direct(PAYMENT, { r: reference }));
  expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200]);
  expect(answers.map((res) => res.body)).toEqual([
    { data: { payment: { reference: first, state: 'AUTHORIZED', amount: { value: 1_000, currency: 'NOK' } } } },
    { data: { payment: { reference: second, state: 'AUTHORIZED', amount: { value: 2_000, currency: 'NOK' } } } },
    { data: { payment: { reference: first, state: 'AUTHORIZED', amount: { value: 1_000, currency: 'NOK' } } } },
    { data: { payment: null } },
  ]);
  expect(answer(answers[1]!)).toEqual(answer(await throughApollo(PAYMENT, { r: second })));
});

test('a document refused once is refused every time, as Apollo refuses it', async () => {
  const refusals = [await direct(TOO_DEEP), await direct(TOO_DEEP), await direct(TOO_DEEP)];
  for (const res of refusals) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          message: 'Query depth 6 exceeds the limit of 5',
          locations: expect.any(Array),
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
  }
  expect(answer(refusals[2]!)).toEqual(answer(await throughApollo(TOO_DEEP)));
  // Nor does a syntax error become acceptable the second time.
  for (let i = 0; i < 2; i++) {
    const broken = await direct('{ payment(reference: "x") { reference }');
    expect(broken.status).toBe(400);
    expect((broken.body as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  }
});

test('control characters: a document that writes one is refused each time; a clean document is checked per request for its variables', async () => {
  const written = '{ payment(reference: "ref\\u0001") { reference } }';
  for (let i = 0; i < 2; i++) {
    const res = await direct(written);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        expect.objectContaining({
          extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', details: [expect.objectContaining({ name: 'reference' })] }),
        }),
      ],
    });
  }
  const reference = await merchant.authorizedPayment(1_000);
  expect((await direct(PAYMENT, { r: reference })).status).toBe(200);
  const dirty = await direct(PAYMENT, { r: `${reference}\u0002` });
  expect(dirty.status).toBe(400);
  expect(dirty.body).toEqual({
    errors: [
      expect.objectContaining({
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', details: [expect.objectContaining({ name: '$r' })] }),
      }),
    ],
  });
  expect((await direct(PAYMENT, { r: reference })).status).toBe(200);
});

test('an error raised while executing is formatted as Apollo formats it', async () => {
  // The page size is checked by the resolver, after validation; `payments` is non-null, so `data` is null.
  const query = '{ payments(first: 500) { edges { node { reference } } } }';
  const res = await direct(query);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    errors: [expect.objectContaining({ path: ['payments'], extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })],
    data: null,
  });
  expect(answer(res)).toEqual(answer(await throughApollo(query)));
});

test('an operation is charged once, also when variables that do not coerce leave it to Apollo', async () => {
  const reference = await merchant.authorizedPayment(1_000);
  const before = remaining(await direct(PAYMENT, { r: reference }));
  const uncoerced = await direct(PAYMENT, { r: 42 });
  expect(uncoerced.status).toBe(400);
  expect((uncoerced.body as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
  const between = remaining(uncoerced);
  const after = remaining(await direct(PAYMENT, { r: reference }));
  // Each of these costs one point (a cost of 5 at 100 per point).
  expect([before - between, between - after]).toEqual([1, 1]);
});

test('what is not a plain operation is still served as before: a GET query, one operation named among several, none named', async () => {
  const reference = await merchant.authorizedPayment(1_000);
  const query = `{ payment(reference: "${reference}") { reference } }`;
  const get = await merchant.request('GET', `/graphql?query=${encodeURIComponent(query)}`);
  expect(get.status).toBe(200);
  expect(get.body).toEqual({ data: { payment: { reference } } });
  const two = `query A { payment(reference: "${reference}") { reference } } query B { payment(reference: "${reference}") { state } }`;
  const named = await merchant.request('POST', '/graphql', { query: two, operationName: 'B' });
  expect(named.body).toEqual({ data: { payment: { state: 'AUTHORIZED' } } });
  const unnamed = await merchant.request('POST', '/graphql', { query: two });
  expect(answer(unnamed)).toEqual(answer(await throughApollo(two)));
  expect(unnamed.status).toBe(400);
});
