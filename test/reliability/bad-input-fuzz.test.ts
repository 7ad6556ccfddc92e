import fc from 'fast-check';
import { MERCHANT_A, MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

/** Things that must never reach a client: stack frames, SQL, file paths, driver messages. */
const LEAKS = [
  /\bat \S+ \(/,
  /node_modules/,
  /\/work\//,
  /\.ts:\d+/,
  /\bselect\b.*\bfrom\b/i,
  /\binsert into\b/i,
  /violates .* constraint/i,
  /TypeError|ReferenceError/,
];

function fill(pattern: string, value: string): string {
  return pattern.replace(/\{\w+\}/g, encodeURIComponent(value));
}

const headerValue = fc.oneof(fc.constant(''), fc.string({ maxLength: 80 }), fc.stringMatching(/^[0-9a-zA-Z -]{0,60}$/));
const badBody = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('{', '[', '{"amount":', 'null', '{"amount":{"value":1e400}}', '{"reference":{"$ne":null}}', '\u0000'),
  fc
    .record({
      amount: fc.jsonValue(),
      reference: fc.jsonValue(),
      userFlow: fc.jsonValue(),
      paymentMethod: fc.jsonValue(),
      modificationAmount: fc.jsonValue(),
    })
    .map((v) => JSON.stringify(v)),
);

describe('malformed requests get only documented 4xx answers', () => {
  test('at least 1,000 malformed bodies, headers, paths and queries against every route', async () => {
    const routes = t.app.router.routes
      .map((r) => ({ method: r.method, pattern: r.pattern }))
      .concat([{ method: 'POST', pattern: '/graphql' }]);
    let sent = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(fc.string({ maxLength: 60 }), fc.stringMatching(/^[a-zA-Z0-9-]{8,50}$/)),
        badBody,
        // Mostly valid credentials, so most requests get past the headers and exercise body and state rules.
        fc.record({
          msn: fc.oneof({ weight: 4, arbitrary: fc.constant(MERCHANT_A.msn) }, { weight: 1, arbitrary: headerValue }),
          key: fc.oneof({ weight: 4, arbitrary: fc.uuid() }, { weight: 1, arbitrary: headerValue }),
          auth: fc.oneof(
            { weight: 4, arbitrary: fc.constant('valid') },
            { weight: 1, arbitrary: fc.constantFrom('none', 'garbage', 'Bearer x.y.z') },
          ),
          system: fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 1, arbitrary: headerValue }),
          query: fc.string({ maxLength: 40 }),
        }),
        async (route, param, body, h) => {
          const headers: Record<string, string> = {
            'Content-Type': 'application/json',
            'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey,
            'Merchant-Serial-Number': h.msn,
            'Idempotency-Key': h.key,
            'Svc-System-Name': h.system,
          };
          if (h.auth === 'valid') headers.Authorization = `Bearer ${await merchant.accessToken()}`;
          else if (h.auth !== 'none') headers.Authorization = h.auth === 'garbage' ? 'garbage' : h.auth;
          const path = `${fill(route.pattern, param || 'x')}?${new URLSearchParams({ token: h.query, q: h.query })}`;
          let res: Response;
          try {
            res = await fetch(t.baseUrl + path, {
              method: route.method,
              headers: sanitize(headers),
              body: route.method === 'GET' ? undefined : body,
            });
          } catch {
            return; // a header value fetch itself refuses to send never reaches the service
          }
          sent++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const text = await res.text();
          expect(res.status).toBeLessThan(500);
          for (const leak of LEAKS) expect(text).not.toMatch(leak);
          const type = res.headers.get('content-type') ?? '';
          if (res.status >= 400 && type.includes('problem+json')) {
            expect(JSON.parse(text)).toEqual(
              expect.objectContaining({
                type: expect.any(String),
                title: expect.any(String),
                status: res.status,
                traceId: expect.any(String),
              }),
            );
          }
        },
      ),
      { numRuns: 1_100, interruptAfterTimeLimit: 90_000 },
    );
    expect(sent).toBeGreaterThanOrEqual(1_000);
    // The run reached past authentication into validation and domain rules, not just the front door.
    expect((statuses.get(400) ?? 0) + (statuses.get(404) ?? 0)).toBeGreaterThan(sent / 2);
  }, 120_000);
});

/** Drops characters no HTTP client may put in a header, so the request is malformed in content, not in framing. */
function sanitize(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace(/[^\x20-\x7e]/g, '')]));
}
