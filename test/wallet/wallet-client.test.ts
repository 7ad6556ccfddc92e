import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { pendingNodes, tokenOf, WalletClient } from '../support/wallet-client.js';

/**
 * Issue 35: a wallet app's client acts for its users through the graph (the test environment's wallet client, on
 * the seeded test users): their pending payments by phone number, an approval with consent, a rejection, each
 * through the one approval of a wallet user.
 */
let t: TestApp;
let merchant: MerchantClient;
let wallet: WalletClient;

const KARI = { phoneNumber: '4791234567', sub: 'c06c4afe-d9e1-4c5d-939a-177d752a0944' };
const OLA = '4798765432';

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  wallet = new WalletClient(t.baseUrl);
});
afterAll(() => t.close());

async function create(overrides: Record<string, unknown> = {}): Promise<{ reference: string; token: string }> {
  const reference = newReference('wallet-app');
  const res = await merchant.createPayment({ reference, ...overrides });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return { reference, token: tokenOf(res.body.redirectUrl) };
}

const forKari = { customer: { phoneNumber: KARI.phoneNumber } };

test("a user's pending payments: made for their phone number and still waiting, shown as the app shows them", async () => {
  const first = await create({ ...forKari, amount: { currency: 'NOK', value: 12_345 }, paymentDescription: 'Kaffe' });
  const second = await create({ ...forKari, profile: { scope: 'name email' } });
  const decided = await create(forKari);
  expect((await wallet.reject({ phoneNumber: KARI.phoneNumber, token: decided.token })).body.data.walletRejectPayment.userErrors).toEqual(
    [],
  );
  const olas = await create({ customer: { phoneNumber: OLA } });

  const res = await wallet.pending('91234567');
  expect(res.status).toBe(200);
  const listed = pendingNodes(res) as { token: string }[];
  const mine = listed.filter((p) => [first.token, second.token, decided.token, olas.token].includes(p.token));
  // Both were made at the same moment of the test's clock: their order is not the point here.
  expect(mine).toHaveLength(2);
  expect(mine).toEqual(
    expect.arrayContaining([
      {
        token: first.token,
        shopName: 'Test Shop Online',
        amount: { value: 12_345, currency: 'NOK' },
        description: 'Kaffe',
        state: 'CREATED',
        awaitsUser: true,
        expiresAt: expect.any(String),
        requestedScopes: [],
        customerPhoneNumber: KARI.phoneNumber,
      },
      expect.objectContaining({ token: second.token, requestedScopes: ['name', 'email'] }),
    ]),
  );
  // The merchant's own identifiers are not the wallet's to see.
  expect(res.text).not.toContain(first.reference);
  expect((await wallet.pending('not a phone')).body.data.walletPendingPayments).toEqual({
    edges: [],
    pageInfo: { hasNextPage: false, endCursor: null },
  });
});

test("a user's pending payments are paged oldest first, with cursors bound to that user's list; an expired one is not listed", async () => {
  const payer = '4790000123';
  const made: string[] = [];
  for (let i = 0; i < 3; i++) {
    made.push((await create({ customer: { phoneNumber: payer } })).token);
    t.clock.advance(1_000); // distinct creation times: the order is the point here
  }
  const first = await wallet.pending(payer, { first: 2 });
  expect(pendingNodes(first).map((p) => p.token)).toEqual(made.slice(0, 2));
  const { hasNextPage, endCursor } = first.body.data.walletPendingPayments.pageInfo;
  expect(hasNextPage).toBe(true);
  const rest = await wallet.pending(payer, { first: 2, after: endCursor });
  expect(pendingNodes(rest).map((p) => p.token)).toEqual(made.slice(2));
  expect(rest.body.data.walletPendingPayments.pageInfo.hasNextPage).toBe(false);
  // Another user's list does not take this one's cursor.
  const other = await wallet.pending(OLA, { first: 2, after: endCursor });
  expect(other.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  expect((await wallet.pending(payer, { first: 101 })).body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');

  // Past the oldest one's expiry (10 minutes) but not the newest's: the page holds only what still waits.
  t.clock.advance(10 * 60_000 - 2_500);
  expect(pendingNodes(await wallet.pending(payer)).map((p) => p.token)).toEqual(made.slice(1));
});

test('approve with consent to the requested scopes: AUTHORIZED, the profile shared with the merchant', async () => {
  const { reference, token } = await create({ ...forKari, profile: { scope: 'name email' } });
  const refused = await wallet.approve({ phoneNumber: KARI.phoneNumber, token, consentedScopes: ['name'] });
  expect(refused.body.data.walletApprovePayment).toMatchObject({
    payment: { token, state: 'CREATED', awaitsUser: true },
    userErrors: [{ code: 'CONSENT_REQUIRED', field: 'consentedScopes' }],
  });
  expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');

  const approved = await wallet.approve({ phoneNumber: KARI.phoneNumber, token, consentedScopes: ['email', 'name'] });
  expect(approved.body.data.walletApprovePayment).toMatchObject({
    payment: { token, state: 'AUTHORIZED', awaitsUser: false },
    userErrors: [],
  });
  const payment = (await merchant.getPayment(reference)).body;
  expect(payment).toMatchObject({ state: 'AUTHORIZED', profile: { sub: KARI.sub } });
  expect((await merchant.events(reference)).body.map((e: { name: string }) => e.name)).toEqual(['CREATED', 'AUTHORIZED']);
  // Approved once: a second approval is refused, and the payment is left as it is.
  const again = await wallet.approve({ phoneNumber: KARI.phoneNumber, token, consentedScopes: ['email', 'name'] });
  expect(again.body.data.walletApprovePayment.userErrors).toEqual([
    { code: 'NOT_AWAITING_USER', field: 'token', message: 'The payment no longer waits for its user' },
  ]);
});

test("another customer's payment is not the user's to approve or reject; an unknown token names none", async () => {
  const { reference, token } = await create({ customer: { phoneNumber: OLA } });
  for (const res of [
    await wallet.approve({ phoneNumber: KARI.phoneNumber, token }),
    await wallet.reject({ phoneNumber: KARI.phoneNumber, token }),
  ]) {
    const payload = res.body.data.walletApprovePayment ?? res.body.data.walletRejectPayment;
    expect(payload.userErrors).toEqual([expect.objectContaining({ code: 'OTHER_CUSTOMER', field: 'phoneNumber' })]);
  }
  expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');
  const unknown = await wallet.approve({ phoneNumber: KARI.phoneNumber, token: 'no-such-token' });
  expect(unknown.body.data.walletApprovePayment).toEqual({
    payment: null,
    userErrors: [{ code: 'NO_SUCH_PAYMENT', field: 'token', message: 'No payment has this token' }],
  });
  expect((await wallet.approve({ phoneNumber: '12', token })).body.data.walletApprovePayment.userErrors[0].code).toBe('NOT_A_PHONE_NUMBER');
});

test('a scanned QR names a payment made for nobody: the app shows it, and its user approves (made known by the approval)', async () => {
  const { reference, token } = await create();
  const shown = await wallet.graphql('query($t: String!) { walletPayment(token: $t) { shopName state customerPhoneNumber } }', {
    t: token,
  });
  expect(shown.body.data.walletPayment).toEqual({ shopName: 'Test Shop Online', state: 'CREATED', customerPhoneNumber: null });
  const newcomer = '4790011223';
  const approved = await wallet.approve({ phoneNumber: newcomer, token });
  expect(approved.body.data.walletApprovePayment.userErrors).toEqual([]);
  expect((await merchant.getPayment(reference)).body.state).toBe('AUTHORIZED');
  expect((await wallet.graphql('query { walletPayment(token: "nothing") { token } }')).body.data.walletPayment).toBeNull();
});

test('reject: ABORTED, and the landing page shows it', async () => {
  const { reference, token } = await create(forKari);
  const res = await wallet.reject({ phoneNumber: KARI.phoneNumber, token });
  expect(res.body.data.walletRejectPayment).toMatchObject({ payment: { state: 'ABORTED' }, userErrors: [] });
  expect((await merchant.getPayment(reference)).body.state).toBe('ABORTED');
});

test('issue 34: a failure trigger amount is DECLINED and an underage user UNDER_MINIMUM_AGE; the payment still waits', async () => {
  const declined = await create({ ...forKari, amount: { currency: 'NOK', value: 151 } });
  const first = await wallet.approve({ phoneNumber: KARI.phoneNumber, token: declined.token });
  expect(first.body.data.walletApprovePayment).toMatchObject({ payment: { state: 'CREATED' }, userErrors: [{ code: 'DECLINED' }] });
  const young = await create({ minimumUserAge: 18 });
  const child = await wallet.approve({ phoneNumber: '4795550315', token: young.token });
  expect(child.body.data.walletApprovePayment).toMatchObject({
    payment: { state: 'CREATED' },
    userErrors: [{ code: 'UNDER_MINIMUM_AGE' }],
  });
  for (const { reference } of [declined, young]) {
    expect((await merchant.events(reference)).body.map((e: { name: string }) => e.name)).toEqual(['CREATED']);
  }
});

test("an approval in the app counts as the user's own: force approve then works for a user who never approved", async () => {
  const first = await create({ customer: { phoneNumber: OLA } });
  expect((await merchant.forceApprove(first.reference, { customer: { phoneNumber: OLA } })).status).toBe(400);
  expect((await wallet.approve({ phoneNumber: OLA, token: first.token })).body.data.walletApprovePayment.userErrors).toEqual([]);
  const second = await create();
  expect((await merchant.forceApprove(second.reference, { customer: { phoneNumber: OLA } })).status).toBe(200);
});

test('the wallet client reaches only its own fields: merchant fields and the ePayment API are refused (403)', async () => {
  const { reference } = await create(forKari);
  const field = await wallet.graphql('query($r: String!) { payment(reference: $r) { reference } }', { r: reference });
  expect({ status: field.status, code: field.body.errors?.[0]?.extensions?.code, data: field.body.data }).toEqual({
    status: 403,
    code: 'FORBIDDEN',
    data: undefined,
  });
  const rest = await wallet.request('GET', `/epayment/v1/payments/${reference}`, undefined, { 'Merchant-Serial-Number': '123456' });
  expect(rest.status).toBe(403);
  const merchantField = await merchant.graphql('query { walletPendingPayments(phoneNumber: "4791234567") { edges { node { token } } } }');
  expect(merchantField.status).toBe(403);
});
