import { forkEm } from '../../src/platform/db/orm.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import type { TestApp } from '../support/test-app.js';
import { pendingNodes, tokenOf, WalletClient } from '../support/wallet-client.js';
import { onboardShopAndWallet, startProductionApp, type OnboardedShop } from './support/production-platform.js';

/**
 * Issue 35, "in production a payer lands on the test wallet": end to end in production mode, from an empty database.
 * The operator onboards a merchant and a wallet app's client; the merchant creates a payment; its `redirectUrl` opens
 * the platform's own landing page (approve in the app, a QR code), which follows the payment live; the wallet app's
 * client finds the payment by its user's phone number and approves it with consent; the merchant captures.
 */
let t: TestApp;
let shop: OnboardedShop;
let merchant: MerchantClient;
let wallet: WalletClient;
const PAYER = '4790000001';

beforeAll(async () => {
  t = await startProductionApp();
  const em = forkEm(t.app.services.orm);
  const counts = await em.execute<{ clients: number | string; units: number | string; users: number | string }[]>(
    'select (select count(*) from api_client) as clients, (select count(*) from sales_unit) as units, (select count(*) from wallet_user) as users',
  );
  // Production seeds nothing: no client, no sales unit, no wallet user.
  expect(counts.map((c) => [Number(c.clients), Number(c.units), Number(c.users)])).toEqual([[0, 0, 0]]);
  shop = await onboardShopAndWallet(t);
  merchant = new MerchantClient(t.baseUrl, shop.merchant);
  wallet = new WalletClient(t.baseUrl, shop.wallet);
});
afterAll(() => t?.close());

async function create(overrides: Record<string, unknown> = {}): Promise<{ reference: string; redirectUrl: string; token: string }> {
  const reference = newReference('prod');
  const res = await merchant.createPayment({ reference, customer: { phoneNumber: PAYER }, ...overrides });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return { reference, redirectUrl: res.body.redirectUrl, token: tokenOf(res.body.redirectUrl) };
}

/** The landing page's own long poll (what its script posts): answers once the state differs from `shown`. */
function liveState(token: string, shown: string): Promise<{ state: string; awaitsUser: boolean; settled: boolean }> {
  return fetch(`${t.baseUrl}/wallet/landing/state`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, state: shown }).toString(),
  }).then((r) => r.json() as Promise<{ state: string; awaitsUser: boolean; settled: boolean }>);
}

test('onboarding, a create, the landing page, the wallet app’s approval with consent, and capture', async () => {
  const { reference, redirectUrl, token } = await create({ amount: { currency: 'NOK', value: 24_900 }, profile: { scope: 'name' } });

  // The payer's browser: the platform's own page, never the test wallet.
  const landing = await fetch(redirectUrl);
  const html = await landing.text();
  expect(landing.status).toBe(200);
  expect(html).toContain('<p class="brand">Paygraph</p>');
  expect(html).toContain(shop.shopName);
  expect(html).toContain('kr\u00a0249,00');
  expect(html).toContain('Approve in the app');
  expect(html).toMatch(/<img src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" [^>]*alt="QR code of this payment">/);
  expect(html).not.toMatch(/test wallet|test user|phoneNumber|name="consent"/i);
  // The test wallet's approval is not served in production: a post to it finds nothing and changes nothing.
  const posted = await fetch(`${t.baseUrl}/wallet/landing/approve?token=${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ phoneNumber: PAYER, consent: 'yes' }).toString(),
  });
  expect(posted.status).toBe(404);
  expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');

  // The page follows the payment: its long poll is open while the app approves.
  const followed = liveState(token, 'CREATED');

  // The wallet app, for the user it authenticated: the pending payment, as the app shows it.
  const pending = await wallet.pending(PAYER);
  expect(pendingNodes(pending)).toEqual([
    expect.objectContaining({ token, shopName: shop.shopName, amount: { value: 24_900, currency: 'NOK' }, requestedScopes: ['name'] }),
  ]);
  const withoutConsent = await wallet.approve({ phoneNumber: PAYER, token });
  expect(withoutConsent.body.data.walletApprovePayment.userErrors).toEqual([expect.objectContaining({ code: 'CONSENT_REQUIRED' })]);
  const approved = await wallet.approve({ phoneNumber: PAYER, token, consentedScopes: ['name'] });
  expect(approved.body.data.walletApprovePayment).toMatchObject({ payment: { state: 'AUTHORIZED' }, userErrors: [] });
  expect(await followed).toMatchObject({ state: 'AUTHORIZED', awaitsUser: false, settled: true });
  expect(pendingNodes(await wallet.pending(PAYER))).toEqual([]);

  // The merchant sees who approved (the user's `sub`, shared with consent) and captures.
  const payment = (await merchant.getPayment(reference)).body;
  expect(payment).toMatchObject({ state: 'AUTHORIZED', profile: { sub: expect.any(String) } });
  const captured = await merchant.modify(reference, 'capture', 24_900);
  expect(captured.status).toBe(200);
  expect((await merchant.getPayment(reference)).body.aggregate.capturedAmount).toEqual({ currency: 'NOK', value: 24_900 });
  expect((await merchant.events(reference)).body.map((e: { name: string }) => e.name)).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);

  // Decided: the page drops the ask and the QR code, and offers the way back to the shop.
  const after = await (await fetch(redirectUrl)).text();
  expect(after).toContain('Payment approved');
  expect(after).not.toContain('QR code of this payment');
  expect(after).toContain('Back to Eksempelbutikken nett');
});

test('the wallet app rejects: ABORTED; force approve stays refused in production', async () => {
  const { reference, token } = await create();
  expect((await merchant.forceApprove(reference, { customer: { phoneNumber: PAYER } })).status).toBe(403);
  const rejected = await wallet.reject({ phoneNumber: PAYER, token });
  expect(rejected.body.data.walletRejectPayment).toMatchObject({ payment: { state: 'ABORTED' }, userErrors: [] });
  expect((await merchant.getPayment(reference)).body.state).toBe('ABORTED');
});

test('a landing link that names no payment is a 404 on the platform’s page', async () => {
  const res = await fetch(`${t.baseUrl}/wallet/landing?token=no-such-token`);
  expect(res.status).toBe(404);
  const html = await res.text();
  expect(html).toContain('Payment not found');
  expect(html).not.toMatch(/test wallet/i);
});
