import { MERCHANT_B, MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { approveWithConsent, KARI } from '../support/user-consent.js';

/** `Payment.profile.userInfo`: the profile consented to with the payment, the same claims as the userinfo API. */
let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const PROFILE_QUERY = `query($r: String!) { payment(reference: $r) { profile { sub userInfo {
  sub name givenName familyName email emailVerified phoneNumber birthdate nin
  address { addressType country default formatted postalCode region streetAddress }
  otherAddresses { streetAddress } accounts { accountName accountNumber bankName } scope readableUntil } } } }`;

async function profileOf(client: MerchantClient, reference: string) {
  const res = await client.graphql(PROFILE_QUERY, { r: reference });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.payment?.profile;
}

test('the consented claims, and null for the claims of scopes not consented to', async () => {
  const approval = await approveWithConsent(merchant, 'name address accountNumbers');
  const profile = await profileOf(merchant, approval.reference);
  expect(profile).toEqual({
    sub: KARI.sub,
    userInfo: {
      sub: KARI.sub,
      name: 'Kari Nordmann',
      givenName: 'Kari',
      familyName: 'Nordmann',
      email: null,
      emailVerified: null,
      phoneNumber: null,
      birthdate: null,
      nin: null,
      address: {
        addressType: 'home',
        country: 'NO',
        default: true,
        formatted: 'Storgata 1\n0155 Oslo',
        postalCode: '0155',
        region: 'Oslo',
        streetAddress: 'Storgata 1',
      },
      // Kari's second address (Express lets the user ship there), under the address scope.
      otherAddresses: [{ streetAddress: 'Dronning Eufemias gate 16' }],
      accounts: [{ accountName: 'Brukskonto', accountNumber: '86011117947', bankName: 'Testbanken ASA' }],
      scope: 'name address accountNumbers',
      readableUntil: expect.any(String),
    },
  });
  // The graph and REST answer with the same claims.
  const rest = await merchant.request('GET', `/vipps-userinfo-api/userinfo/${KARI.sub}`);
  expect(rest.body.name).toBe(profile.userInfo.name);
});

test('null without consent (no scope asked for); force approve consents to the scope asked for, as the user in the app', async () => {
  const plain = await merchant.authorizedPayment(1_000);
  expect(await profileOf(merchant, plain)).toEqual({ sub: null, userInfo: null });
  const forced = await merchant.authorizedPayment(1_000, { profile: { scope: 'name' } });
  const profile = await profileOf(merchant, forced);
  expect(profile.sub).toBe(KARI.sub);
  expect(profile.userInfo).toMatchObject({ sub: KARI.sub, name: 'Kari Nordmann', email: null, scope: 'name' });
});

test("another merchant sees no payment, so no profile; the consent's sales unit alone reads it", async () => {
  const approval = await approveWithConsent(merchant, 'email');
  const res = await new MerchantClient(t.baseUrl, MERCHANT_B).graphql(PROFILE_QUERY, { r: approval.reference });
  expect(res.body.data.payment).toBeNull();
});

// Moves the clock: last.
test('null once the consent is older than 168 hours', async () => {
  const approval = await approveWithConsent(merchant, 'email');
  expect((await profileOf(merchant, approval.reference)).userInfo.email).toBe('kari.nordmann@example.com');
  t.clock.advance(168 * 3600 * 1000);
  const fresh = new MerchantClient(t.baseUrl);
  expect(await profileOf(fresh, approval.reference)).toEqual({ sub: KARI.sub, userInfo: null });
});
