import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const nok = (value: number) => ({ currency: 'NOK', value });

/** The seeded test users (src/wallet/wallet.seed.ts): Kari and Ola Nordmann. */
const KARI = { phoneNumber: '4791234567', sub: 'c06c4afe-d9e1-4c5d-939a-177d752a0944' };
const OLA = { phoneNumber: '4798765432' };

interface Created {
  reference: string;
  redirectUrl: string;
  token: string;
}

async function create(overrides: Record<string, unknown> = {}): Promise<Created> {
  const reference = newReference();
  const res = await merchant.createPayment({ reference, ...overrides });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  const redirectUrl = res.body.redirectUrl as string;
  const token = redirectUrl ? new URL(redirectUrl).searchParams.get('token')! : '';
  return { reference, redirectUrl, token };
}

/** A wallet user's request: no credentials of any kind. */
async function anonymous(method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<Response> {
  return fetch(url.startsWith('http') ? url : t.baseUrl + url, {
    method,
    headers: form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {},
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
}

function approveOnLanding(token: string, phoneNumber: string): Promise<Response> {
  return anonymous('POST', `/wallet/landing/approve?token=${encodeURIComponent(token)}`, { phoneNumber, action: 'approve' });
}

function rejectOnLanding(token: string): Promise<Response> {
  return anonymous('POST', `/wallet/landing/reject?token=${encodeURIComponent(token)}`, {});
}

async function stateOf(reference: string): Promise<string> {
  return (await merchant.getPayment(reference)).body.state;
}

async function eventNames(reference: string): Promise<string[]> {
  return (await merchant.events(reference)).body.map((e: { name: string }) => e.name);
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = CONDITION_DEADLINE_MS): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('landing page', () => {
  test.each(['WEB_REDIRECT', 'NATIVE_REDIRECT'])(
    '%s: redirectUrl is an HTML page without credentials, showing amount and merchant',
    async (userFlow) => {
      const { redirectUrl, token } = await create({ userFlow, amount: nok(12_345), paymentDescription: 'Three pairs of <socks>' });
      expect(redirectUrl).toBe(`${t.baseUrl}/wallet/landing?token=${token}`);
      const res = await anonymous('GET', redirectUrl);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const page = await res.text();
      expect(page).toMatch(/^<!doctype html>/i);
      expect(page).toContain('kr\u00a0123,45');
      expect(page).toContain('Test Shop Online');
      expect(page).toContain('Three pairs of &lt;socks&gt;');
      expect(page).not.toContain('<socks>');
      expect(page).toContain('<h1 data-testid="heading">Approve payment</h1>');
      expect(page).toContain('Status: Waiting for your approval');
      expect(page).toContain(`action="/wallet/landing/approve?token=${encodeURIComponent(token)}"`);
      expect(page).toContain(`action="/wallet/landing/reject?token=${encodeURIComponent(token)}"`);
    },
  );

  test('an unknown token is a 404 page; a missing token is a 400', async () => {
    const unknown = await anonymous('GET', '/wallet/landing?token=no-such-token');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('This payment link is not valid.');
    expect((await anonymous('GET', '/wallet/landing')).status).toBe(400);
  });

  test('approving with the 8-digit number authorizes the whole amount', async () => {
    const { reference, token } = await create({ amount: nok(10_000) });
    const res = await approveOnLanding(token, '91234567');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('<h1 data-testid="heading">Payment approved</h1>');
    expect(page).toContain('data-tone="success"');
    expect(page).toContain('Status: Approved');
    expect(page).not.toContain('/wallet/landing/approve');
    expect(page).toContain('href="https://merchant.example/return"');

    const payment = await merchant.getPayment(reference);
    expect(payment.body.state).toBe('AUTHORIZED');
    expect(payment.body.aggregate).toEqual({
      authorizedAmount: nok(10_000),
      capturedAmount: nok(0),
      cancelledAmount: nok(0),
      refundedAmount: nok(0),
    });
    const events = (await merchant.events(reference)).body;
    expect(events.map((e: any) => [e.name, e.amount.value, e.success])).toEqual([
      ['CREATED', 10_000, true],
      ['AUTHORIZED', 10_000, true],
    ]);
    // The authorized payment can be captured.
    expect((await merchant.modify(reference, 'capture', 10_000)).status).toBe(200);
  });

  test('approving with the full number works; approving twice is refused and changes nothing', async () => {
    const { reference, token } = await create();
    expect((await approveOnLanding(token, KARI.phoneNumber)).status).toBe(200);
    expect(await stateOf(reference)).toBe('AUTHORIZED');

    const again = await approveOnLanding(token, KARI.phoneNumber);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('This payment can no longer be approved.');
    expect(await eventNames(reference)).toEqual(['CREATED', 'AUTHORIZED']);
  });

  test('reject ends the payment as ABORTED with its event; it cannot be approved afterwards', async () => {
    const { reference, token } = await create();
    const res = await rejectOnLanding(token);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('<h1 data-testid="heading">Payment rejected</h1>');
    expect(page).toContain('data-tone="failure"');
    expect(page).toContain('The payment was rejected. No money was taken.');
    expect(await stateOf(reference)).toBe('ABORTED');
    const events = (await merchant.events(reference)).body;
    expect(events.map((e: any) => [e.name, e.amount.value])).toEqual([
      ['CREATED', 10_000],
      ['ABORTED', 10_000],
    ]);
    expect((await approveOnLanding(token, KARI.phoneNumber)).status).toBe(400);
    expect((await rejectOnLanding(token)).status).toBe(400);
    expect((await merchant.forceApprove(reference)).status).toBe(400);
    expect(await stateOf(reference)).toBe('ABORTED');
    expect(await eventNames(reference)).toEqual(['CREATED', 'ABORTED']);
  });

  test('a payment the shop cancelled before approval says so, in the failure style, with no choices left', async () => {
    const { reference, redirectUrl } = await create();
    expect((await merchant.modify(reference, 'cancel')).status).toBe(200);
    expect(await stateOf(reference)).toBe('TERMINATED');
    const page = await (await anonymous('GET', redirectUrl)).text();
    expect(page).toContain('<h1 data-testid="heading">Payment cancelled</h1>');
    expect(page).toContain('data-tone="failure"');
    expect(page).toContain('Status: Cancelled by the shop');
    expect(page).toContain('The shop cancelled this payment. No money was taken.');
    expect(page).not.toContain('/wallet/landing/approve');
  });

  test.each([
    ['not a test user', '4700000000'],
    ['not a phone number', 'abc'],
    ['empty', ''],
  ])('a phone number that is %s is refused with a message and leaves the payment CREATED', async (_, phoneNumber) => {
    const { reference, token } = await create();
    const res = await approveOnLanding(token, phoneNumber);
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('No test user has that phone number.');
    // The user can try again.
    expect(page).toContain('/wallet/landing/approve');
    expect(await stateOf(reference)).toBe('CREATED');
    expect(await eventNames(reference)).toEqual(['CREATED']);
  });

  test('a payment created for one customer cannot be approved by another', async () => {
    const { reference, token } = await create({ userFlow: 'NATIVE_REDIRECT', customer: { phoneNumber: KARI.phoneNumber } });
    const res = await approveOnLanding(token, OLA.phoneNumber);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('This payment is for another user.');
    expect(await stateOf(reference)).toBe('CREATED');
  });

  test('approve and reject with an unknown token are 404', async () => {
    expect((await approveOnLanding('no-such-token', KARI.phoneNumber)).status).toBe(404);
    expect((await rejectOnLanding('no-such-token')).status).toBe(404);
  });
});

describe('force approve', () => {
  test('works from the start for 4791234567', async () => {
    const { reference } = await create();
    const res = await merchant.forceApprove(reference, { customer: { phoneNumber: KARI.phoneNumber } });
    expect(res.status).toBe(200);
    const payment = await merchant.getPayment(reference);
    expect(payment.body.state).toBe('AUTHORIZED');
    expect(payment.body.aggregate.authorizedAmount).toEqual(nok(10_000));
    expect(await eventNames(reference)).toEqual(['CREATED', 'AUTHORIZED']);
  });

  test('fails for 4798765432 until that user approves a payment on the landing page', async () => {
    const first = await create();
    const refused = await merchant.forceApprove(first.reference, { customer: { phoneNumber: OLA.phoneNumber } });
    expect(refused.status).toBe(400);
    expect(refused.body.title).toBe('Approve failed');
    expect(refused.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '10010' });
    expect(refused.body.extraDetails).toContainEqual(expect.objectContaining({ name: 'customer.phoneNumber' }));
    expect(await stateOf(first.reference)).toBe('CREATED');

    // A refused landing attempt is not an approval.
    const other = await create();
    expect((await approveOnLanding(other.token, '4700000000')).status).toBe(400);
    expect((await merchant.forceApprove(first.reference, { customer: { phoneNumber: OLA.phoneNumber } })).status).toBe(400);

    expect((await approveOnLanding(other.token, '98765432')).status).toBe(200);
    expect(await stateOf(other.reference)).toBe('AUTHORIZED');

    const approved = await merchant.forceApprove(first.reference, { customer: { phoneNumber: OLA.phoneNumber } });
    expect(approved.status).toBe(200);
    expect(await stateOf(first.reference)).toBe('AUTHORIZED');
    expect(await eventNames(first.reference)).toEqual(['CREATED', 'AUTHORIZED']);
  });

  test("the token must be the redirectUrl's token of this payment", async () => {
    const payment = await create();
    const another = await create();
    for (const token of ['wrong-token', another.token]) {
      const res = await merchant.forceApprove(payment.reference, { customer: { phoneNumber: KARI.phoneNumber }, token });
      expect(res.status).toBe(400);
      expect(res.body.title).toBe('Approve failed');
      expect(res.body.extraDetails).toContainEqual(expect.objectContaining({ name: 'token' }));
    }
    expect(await stateOf(payment.reference)).toBe('CREATED');
    const ok = await merchant.forceApprove(payment.reference, { customer: { phoneNumber: KARI.phoneNumber }, token: payment.token });
    expect(ok.status).toBe(200);
    expect(await stateOf(payment.reference)).toBe('AUTHORIZED');
    expect(await stateOf(another.reference)).toBe('CREATED');
  });

  test("without a customer it approves as the payment's customer (PUSH_MESSAGE)", async () => {
    const { reference, redirectUrl } = await create({
      userFlow: 'PUSH_MESSAGE',
      customer: { phoneNumber: KARI.phoneNumber },
      returnUrl: undefined,
    });
    expect(redirectUrl).toBeUndefined();
    const res = await merchant.forceApprove(reference, {});
    expect(res.status).toBe(200);
    expect(await stateOf(reference)).toBe('AUTHORIZED');
  });

  test('without a customer on a payment without one, it is refused naming the field', async () => {
    const { reference } = await create();
    const res = await merchant.forceApprove(reference, {});
    expect(res.status).toBe(400);
    expect(res.body.title).toBe('Approve failed');
    expect(res.body.extraDetails).toContainEqual(expect.objectContaining({ name: 'customer.phoneNumber' }));
    expect(await stateOf(reference)).toBe('CREATED');
  });

  test('an unknown test user is "Customer not found"', async () => {
    const { reference } = await create();
    const res = await merchant.forceApprove(reference, { customer: { phoneNumber: '4700000000' } });
    expect(res.status).toBe(400);
    expect(res.body.title).toBe('Customer not found');
    expect(await stateOf(reference)).toBe('CREATED');
  });

  test('approving twice is refused', async () => {
    const { reference } = await create();
    expect((await merchant.forceApprove(reference)).status).toBe(200);
    const again = await merchant.forceApprove(reference);
    expect(again.status).toBe(400);
    expect(again.body.title).toBe('Approve failed');
    expect(await eventNames(reference)).toEqual(['CREATED', 'AUTHORIZED']);
  });

  test('profile.sub is filled on approval only when a profile scope was asked for', async () => {
    const withScope = await create({ profile: { scope: 'name email' } });
    const withoutScope = await create();
    expect((await merchant.getPayment(withScope.reference)).body.profile).toEqual({});

    expect((await merchant.forceApprove(withScope.reference)).status).toBe(200);
    expect((await merchant.forceApprove(withoutScope.reference)).status).toBe(200);
    expect((await merchant.getPayment(withScope.reference)).body.profile).toEqual({ sub: KARI.sub });
    expect((await merchant.getPayment(withoutScope.reference)).body.profile).toEqual({});

    // The same holds for an approval on the landing page.
    const onLanding = await create({ profile: { scope: 'phoneNumber' } });
    const consenting = { phoneNumber: '91234567', consent: 'yes' };
    expect((await anonymous('POST', `/wallet/landing/approve?token=${encodeURIComponent(onLanding.token)}`, consenting)).status).toBe(200);
    expect((await merchant.getPayment(onLanding.reference)).body.profile).toEqual({ sub: KARI.sub });
  });

  test('is refused in production, as is the landing page approval', async () => {
    const { reference, token } = await create();
    await merchant.accessToken();
    const config = t.app.services.config;
    const env = config.env;
    config.env = 'production';
    try {
      const res = await merchant.forceApprove(reference);
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/only available in the test environment/);
      const landing = await approveOnLanding(token, KARI.phoneNumber);
      expect(landing.status).not.toBe(200);
      expect(await landing.text()).toContain('There is no simulated wallet user in production.');
    } finally {
      config.env = env;
    }
    expect(await stateOf(reference)).toBe('CREATED');
    expect(await eventNames(reference)).toEqual(['CREATED']);
  });
});

describe('QR', () => {
  test('QR returns a redirectUrl to an SVG image by default, without credentials', async () => {
    const { reference, redirectUrl, token } = await create({ userFlow: 'QR', returnUrl: undefined });
    expect(redirectUrl).toBe(`${t.baseUrl}/wallet/qr?token=${token}`);
    expect((await merchant.getPayment(reference)).body.redirectUrl).toBe(redirectUrl);
    const res = await anonymous('GET', redirectUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    const svg = await res.text();
    expect(svg).toMatch(/^(<svg|<\?xml)/);
    expect(svg).toContain('</svg>');
    // The QR image's token opens the same payment's landing page.
    const landing = await anonymous('GET', `/wallet/landing?token=${encodeURIComponent(token)}`);
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain('kr\u00a0100,00');
  });

  test('IMAGE/PNG with size 300 is a 300 x 300 PNG', async () => {
    const { redirectUrl } = await create({ userFlow: 'QR', returnUrl: undefined, qrFormat: { format: 'IMAGE/PNG', size: 300 } });
    expect(redirectUrl).toMatch(/\/wallet\/qr\?token=/);
    const res = await anonymous('GET', redirectUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    expect(png.readUInt32BE(16)).toBe(300);
    expect(png.readUInt32BE(20)).toBe(300);
  });

  test('TEXT/TARGETURL returns the landing URL itself', async () => {
    const { reference, redirectUrl, token } = await create({
      userFlow: 'QR',
      returnUrl: undefined,
      qrFormat: { format: 'TEXT/TARGETURL' },
    });
    expect(redirectUrl).toBe(`${t.baseUrl}/wallet/landing?token=${token}`);
    const res = await anonymous('GET', redirectUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await approveOnLanding(token, KARI.phoneNumber)).status).toBe(200);
    expect(await stateOf(reference)).toBe('AUTHORIZED');
  });

  test('there is no QR image for a payment that is not a QR payment, or no longer awaits its user', async () => {
    const redirect = await create();
    expect((await anonymous('GET', `/wallet/qr?token=${encodeURIComponent(redirect.token)}`)).status).toBe(404);
    expect((await anonymous('GET', '/wallet/qr?token=no-such-token')).status).toBe(404);

    const approved = await create({ userFlow: 'QR', returnUrl: undefined });
    expect((await anonymous('GET', approved.redirectUrl)).status).toBe(200);
    expect((await merchant.forceApprove(approved.reference)).status).toBe(200);
    expect((await anonymous('GET', approved.redirectUrl)).status).toBe(404);
  });

  // Last in the file: it moves the clock past every payment's expiry.
  test('the QR image of an expired payment is 404', async () => {
    const { reference, redirectUrl, token } = await create({ userFlow: 'QR', returnUrl: undefined });
    expect((await anonymous('GET', redirectUrl)).status).toBe(200);
    t.clock.advance(11 * 60_000);
    const state = await waitFor(
      () => stateOf(reference),
      (s) => s === 'EXPIRED',
    );
    expect(state).toBe('EXPIRED');
    const res = await anonymous('GET', redirectUrl);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    // Nor can the expired payment be approved on its landing page, which says so.
    const refused = await approveOnLanding(token, KARI.phoneNumber);
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain('<h1 data-testid="heading">Payment expired</h1>');
    expect(page).toContain('The payment was not approved in time and has expired.');
    expect(await eventNames(reference)).toEqual(['CREATED', 'EXPIRED']);
  });
});
