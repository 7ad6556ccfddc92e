import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startProductionApp, startTestApp, type TestApp } from '../support/test-app.js';
import { PspEndpoint } from '../psp/psp-endpoint.js';
import { newIds, testPspClient } from '../psp/psp-fixture.js';

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

async function landing(overrides: Record<string, unknown> = {}): Promise<{ reference: string; redirectUrl: string; token: string }> {
  const reference = newReference('sec');
  const res = await merchant.createPayment({ reference, ...overrides });
  expect(res.status).toBe(201);
  return { reference, redirectUrl: res.body.redirectUrl, token: new URL(res.body.redirectUrl).searchParams.get('token')! };
}

function cspOf(res: Response): Record<string, string> {
  const csp = res.headers.get('content-security-policy') ?? '';
  return Object.fromEntries(
    csp.split(';').map(
      (d) =>
        d
          .trim()
          .split(/\s+(.*)/s)
          .slice(0, 2) as [string, string],
    ),
  );
}

describe('every page', () => {
  test.each([
    ['the front page', '/', { accept: 'text/html' }],
    ['the dashboard', '/dashboard', { accept: 'text/html' }],
    ['the GraphQL IDE', '/graphql', { accept: 'text/html' }],
  ])('%s: a CSP without inline scripts, no framing, assets of our own only', async (_name, path, headers) => {
    const res = await fetch(t.baseUrl + path, { headers });
    expect(res.status).toBe(200);
    const csp = cspOf(res);
    expect(csp['script-src']).toBe("'self'");
    expect(csp['frame-ancestors']).toBe("'none'");
    expect(csp['default-src']).toBe("'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    // No inline script runs: the only inline script element is a JSON data island.
    for (const [, attributes] of html.matchAll(/<script([^>]*)>/g))
      expect(attributes).toMatch(/type="module" src="\/assets\/|type="application\/json"/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  test('the landing page: CSP, no framing, no Referer to other origins', async () => {
    const { redirectUrl } = await landing();
    const res = await fetch(redirectUrl);
    expect(cspOf(res)['script-src']).toBe("'self'");
    expect(cspOf(res)['form-action']).toBe("'self'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
  });
});

describe('assets', () => {
  async function dashboardScript(): Promise<string> {
    const html = await (await fetch(`${t.baseUrl}/dashboard`)).text();
    return /<script type="module" src="([^"]+)"/.exec(html)![1]!;
  }

  test('hashed names, a year-long cache, brotli or gzip as the client accepts', async () => {
    const script = await dashboardScript();
    expect(script).toMatch(/^\/assets\/dashboard-[A-Z0-9]+\.js$/);
    const br = await fetch(t.baseUrl + script, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.status).toBe(200);
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(br.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const gzip = await fetch(t.baseUrl + script, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    // fetch decodes both: the same script either way.
    expect(await br.text()).toBe(await gzip.text());
  });

  test.each(['/assets/manifest.json', '/assets/..%2Fpackage.json', '/assets/nothing-here.js', '/assets/dashboard.js.br'])(
    '%s is not served',
    async (path) => {
      expect((await fetch(t.baseUrl + path)).status).toBe(404);
    },
  );
});

describe('the GraphQL IDE', () => {
  test('GET /graphql without HTML in Accept still reaches the graph', async () => {
    const res = await fetch(`${t.baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { ...(await merchant.headers()), accept: 'application/json', 'apollo-require-preflight': 'true' },
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
  });

  test('in production the page is off: a 404 in the graph error shape', async () => {
    const production = await startProductionApp();
    try {
      const res = await fetch(`${production.baseUrl}/graphql`, { headers: { accept: 'text/html' } });
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'NOT_FOUND', traceId: expect.any(String) } }] });
      // Nor does the dashboard prefill anyone's credentials there.
      const dashboard = await (await fetch(`${production.baseUrl}/dashboard`)).text();
      expect(dashboard).not.toContain('test-secret');
      expect(dashboard).toContain('"prefill":null');
    } finally {
      await production.close();
    }
    // A second app of its own: its start (migrations on a fresh database) is slow on a loaded machine.
  }, 180_000);

  test('in the test environment the pages prefill merchant A, and no credential is put in a URL', async () => {
    const html = await (await fetch(`${t.baseUrl}/dashboard`)).text();
    expect(html).toContain('"clientId":"test-client-123456"');
    expect(html).not.toMatch(/[?&](token|secret|client_secret|access_token)=/i);
  });
});

describe('wallet forms', () => {
  test('a POST from another origin is refused and changes nothing', async () => {
    const { reference, token } = await landing();
    const foreign: Record<string, string>[] = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }];
    for (const headers of foreign) {
      const res = await fetch(`${t.baseUrl}/wallet/landing/approve?token=${encodeURIComponent(token)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ phoneNumber: '91234567' }).toString(),
      });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('This form may only be sent from the wallet’s own page.');
    }
    expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');
  });

  test('a POST from the wallet page itself is accepted', async () => {
    const { reference, token } = await landing();
    const res = await fetch(`${t.baseUrl}/wallet/landing/approve?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.baseUrl, 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ phoneNumber: '91234567' }).toString(),
    });
    expect(res.status).toBe(200);
    expect((await merchant.getPayment(reference)).body.state).toBe('AUTHORIZED');
  });

  test('merchant text is escaped: a description with <script> shows as text', async () => {
    const { redirectUrl } = await landing({ paymentDescription: '<script>alert(1)</script>' });
    const html = await (await fetch(redirectUrl)).text();
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)</script>');
  });
});

// Every wallet page the issue names (ePayment and PSP landing, the callback-QR scan page) and each of their forms.
describe('every wallet page and form', () => {
  let endpoint: PspEndpoint;
  beforeAll(async () => {
    endpoint = await new PspEndpoint().start();
  });
  afterAll(() => endpoint.close());

  async function pspLanding(): Promise<{ url: string; token: string }> {
    const psp = testPspClient(t);
    const res = await psp.request(
      'POST',
      '/psp/v3/psppayments/init',
      { ...newIds(), amount: 10_000, currency: 'NOK', pspRedirectUrl: 'https://psp.example/return', makePaymentUrl: endpoint.url('/sec') },
      psp.msnHeaders,
    );
    expect(res.status).toBe(200);
    return { url: res.body.vippsRedirectUrl, token: new URL(res.body.vippsRedirectUrl).searchParams.get('token')! };
  }
  async function scanPage(): Promise<string> {
    expect((await merchant.request('PUT', '/qr/v1/merchant-callback/sec-kiosk', { locationDescription: 'Kiosk' })).status).toBe(200);
    return (await merchant.request('GET', '/qr/v1/merchant-callback/sec-kiosk', undefined, { Accept: 'image/svg+xml' })).body.qrContent;
  }
  /** The PSP payment's state as its page's script reads it (a same-origin post; '' differs from any state). */
  async function pspState(token: string): Promise<string> {
    const res = await fetch(`${t.baseUrl}/wallet/psp/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.baseUrl },
      body: new URLSearchParams({ token, state: '' }).toString(),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { state: string }).state;
  }
  const foreignPost = (url: string, form: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams(form).toString(),
    });

  test('the PSP landing page and the QR scan page: a CSP without inline scripts, no framing', async () => {
    for (const url of [(await pspLanding()).url, await scanPage()]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      const csp = cspOf(res);
      expect(csp['script-src']).toBe("'self'");
      expect(csp['frame-ancestors']).toBe("'none'");
      expect(csp['form-action']).toBe("'self'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  test('reject on the landing page, approve and cancel on the PSP page, and a check-in: refused from another origin', async () => {
    const { reference, token } = await landing();
    expect((await foreignPost(`${t.baseUrl}/wallet/landing/reject?token=${encodeURIComponent(token)}`)).status).toBe(403);
    expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');

    const psp = await pspLanding();
    for (const action of ['approve', 'cancel']) {
      const res = await foreignPost(`${t.baseUrl}/wallet/psp/${action}?token=${encodeURIComponent(psp.token)}`, {
        phoneNumber: '91234567',
      });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('This form may only be sent from the wallet’s own page.');
    }
    expect(await pspState(psp.token)).toBe('INITIATED');

    const scan = await foreignPost(await scanPage(), { phoneNumber: '4791234567' });
    expect(scan.status).toBe(403);
    expect(await scan.text()).not.toContain('Checked in.');
  });
});
