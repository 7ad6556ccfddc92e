import type { GraphQLFormattedError } from 'graphql';
import { repeatedSelectionDocument } from '../../bench/graph-documents.js';
import { defaultQueryLimits } from '../../src/config.js';
import { MerchantClient, type HttpResult } from '../support/merchant-client.js';
import { connectionParamsOf, eventually, Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * issue 33, N3: `{ viewer { kind } … }` 740 times is 11.8 KB and 2,962 tokens, within the byte and token caps, and
 * took 80 ms to 1.1 s to validate before it was refused, uncharged. The admission now bounds the work before
 * validation and charges the refusal to the client's quota (the most an operation may cost) and to its address.
 */
let t: TestApp;
let merchant: MerchantClient;
/** Small, so the address's quota is seen to run out; the test counts every request charged to it. */
const ADDRESS_QUOTA = 6;

beforeAll(async () => {
  t = await startTestApp({ jobIntervalMs: 3_600_000 }, { PAYGRAPH_RATE_LIMIT_ADDRESS: String(ADDRESS_QUOTA) });
  merchant = new MerchantClient(t.baseUrl);
}, 60_000);
afterAll(() => t.close());

const HOSTILE = repeatedSelectionDocument(740);
const REFUSAL = {
  message: 'The document selects "viewer" with a selection of its own more than 10 times in one selection set; select it once',
  extensions: { code: 'DOCUMENT_TOO_COMPLEX' },
};

/** The `r` of a RateLimit field, and the policy it is of. */
function rateLimit(res: HttpResult): { policy: string; remaining: number } {
  const match = /^"(\w+)";r=(\d+);/.exec(res.headers.get('ratelimit') ?? '');
  if (!match) throw new Error(`no RateLimit field in ${JSON.stringify(Object.fromEntries(res.headers))}`);
  return { policy: match[1]!, remaining: Number(match[2]) };
}

test('the 740-field document is within the caps, refused before validation with a clear error, and charged to the client and the address', async () => {
  expect(Buffer.byteLength(HOSTILE)).toBeLessThan(defaultQueryLimits.maxDocumentBytes);
  let addressPoints = 0;
  // The token request is the address's first point.
  const before = await merchant.graphql('{ viewer { kind } }');
  addressPoints++;
  expect(before.status).toBe(200);
  // Ordinary repetition merges as before; fragments count where they are spread (6 + 5 selections of `viewer`).
  expect((await merchant.graphql(`{ ${'viewer { kind } '.repeat(10)}}`)).body).toEqual({ data: { viewer: { kind: 'MERCHANT' } } });
  const viaFragments = `{ ...A ...B } fragment A on Query { ${'viewer { kind } '.repeat(6)}} fragment B on Query { ${'viewer { kind } '.repeat(5)}}`;
  expect((await merchant.graphql(viaFragments)).body).toEqual({ errors: [REFUSAL] });
  addressPoints++;

  // Over the socket: the same admission, the same refusal.
  const subscriber = new Subscriber(t.baseUrl, await connectionParamsOf(merchant)).subscribe(HOSTILE);
  await eventually(() => subscriber.failure !== undefined, 'the socket to refuse the document');
  expect(subscriber.failure).toEqual([REFUSAL]);
  addressPoints++;
  await subscriber.close();

  const refused = await merchant.graphql(HOSTILE);
  addressPoints++;
  expect(refused.status).toBe(400);
  expect(refused.body).toEqual({ errors: [REFUSAL] });
  // Each refusal is charged the most an operation may cost (50,000 at 100 per point); the merged query one point.
  const mostPoints = defaultQueryLimits.maxCost / t.app.services.config.rateLimits.graphCostPerPoint;
  expect(rateLimit(before).remaining - rateLimit(refused).remaining).toBe(1 + 3 * mostPoints);

  // The address: refusals are answered as such until its quota is spent, then 429, with a valid token.
  while (addressPoints < ADDRESS_QUOTA) {
    expect((await merchant.graphql(HOSTILE)).status).toBe(400);
    addressPoints++;
  }
  const pastQuota = await merchant.graphql(HOSTILE);
  expect(pastQuota.status).toBe(429);
  expect(rateLimit(pastQuota).policy).toBe('address');
  expect((pastQuota.body as { errors: GraphQLFormattedError[] }).errors).toEqual([
    expect.objectContaining({ extensions: expect.objectContaining({ code: 'RATE_LIMITED' }) }),
  ]);
  // Operations it admits are charged to the client only: the client is served as before.
  expect((await merchant.graphql('{ viewer { kind } }')).status).toBe(200);
  // A request without a token from that address is refused by its quota too.
  const anonymous = await fetch(`${t.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { kind } }' }),
  });
  expect(anonymous.status).toBe(429);
});
