import { randomUUID } from 'node:crypto';
import { forkEm } from '../../src/platform/db/orm.js';
import { MERCHANT_B, MerchantClient, newReference, type HttpResult, type TestMerchant } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { approveWithConsent, KARI, OLA } from '../support/user-consent.js';

/** The userinfo API (FACTS §10): what a consenting user shares with a sales unit, for 168 hours. */
let t: TestApp;
let merchantA: MerchantClient;
let merchantB: MerchantClient;

const partnerFor = (msn: string): TestMerchant => ({
  msn,
  clientId: 'test-client-partner',
  clientSecret: 'test-secret-partner',
  subscriptionKey: 'test-key-partner',
});
const PSP: TestMerchant = { msn: '112233', clientId: 'test-client-psp', clientSecret: 'test-secret-psp', subscriptionKey: 'test-key-psp' };
const ALL_SCOPES = 'name email phoneNumber address birthDate nin accountNumbers';

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  merchantA = new MerchantClient(t.baseUrl);
  merchantB = new MerchantClient(t.baseUrl, MERCHANT_B);
});
afterAll(() => t.close());

const userinfo = (client: MerchantClient, sub: string, headers: Record<string, string> = {}) =>
  client.request('GET', `/vipps-userinfo-api/userinfo/${sub}`, undefined, headers);

/** `GET userinfo/` as the merchant's backend calls it: the user's token, and the merchant's own subscription key. */
function userinfoWithUserToken(userToken: string | undefined, headers: Record<string, string> = {}): Promise<HttpResult> {
  return merchantA.raw('GET', '/vipps-userinfo-api/userinfo/', undefined, {
    ...(userToken === undefined ? {} : { Authorization: `Bearer ${userToken}` }),
    'Ocp-Apim-Subscription-Key': 'test-key-123456',
    ...headers,
  });
}

const KARI_CLAIMS = {
  sub: KARI.sub,
  name: 'Kari Nordmann',
  given_name: 'Kari',
  family_name: 'Nordmann',
  email: 'kari.nordmann@example.com',
  email_verified: true,
  phone_number: '4791234567',
  birthdate: '1990-01-01',
  nin: '01019012480',
  address: {
    address_type: 'home',
    country: 'NO',
    default: true,
    formatted: 'Storgata 1\n0155 Oslo',
    postal_code: '0155',
    region: 'Oslo',
    street_address: 'Storgata 1',
  },
  // Her second address (issue 34: the Express landing page offers it).
  other_addresses: [
    {
      address_type: 'work',
      country: 'NO',
      default: false,
      formatted: 'Dronning Eufemias gate 16\n0191 Oslo',
      postal_code: '0191',
      region: 'Oslo',
      street_address: 'Dronning Eufemias gate 16',
    },
  ],
  accounts: [{ account_name: 'Brukskonto', account_number: '86011117947', bank_name: 'Testbanken ASA' }],
};

function expectUserinfoError(res: HttpResult, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json;charset=UTF-8');
  expect(Object.keys(res.body).sort()).toEqual(['detail', 'extraInfo', 'instance', 'status', 'title', 'type']);
  // The documented body carries the status as a string.
  expect(res.body.status).toBe(String(status));
}

describe('GET /vipps-userinfo-api/userinfo/{sub} with the merchant access token', () => {
  test("every scope consented to: Kari Nordmann's whole profile, as TEST-ENVIRONMENT.md documents it", async () => {
    const approval = await approveWithConsent(merchantA, ALL_SCOPES);
    expect(approval.sub).toBe(KARI.sub);
    const res = await userinfo(merchantA, approval.sub);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ ...KARI_CLAIMS, sid: expect.any(String) });
  });

  test('only the claims of the consented scopes', async () => {
    const ola = await approveWithConsent(merchantB, 'email address', { phoneNumber: '98765432' });
    expect(ola.sub).toBe(OLA.sub);
    const res = await userinfo(merchantB, OLA.sub);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sub: OLA.sub,
      sid: expect.any(String),
      email: 'ola.nordmann@example.com',
      email_verified: true,
      address: {
        address_type: 'home',
        country: 'NO',
        default: true,
        formatted: 'Kirkegata 2\n0153 Oslo',
        postal_code: '0153',
        region: 'Oslo',
        street_address: 'Kirkegata 2',
      },
      other_addresses: [],
    });
  });

  test('the scopes of every readable consent of the user to the sales unit, and no more', async () => {
    const fresh = await startTestApp({ runJobs: false });
    try {
      const client = new MerchantClient(fresh.baseUrl);
      await approveWithConsent(client, 'name');
      expect(Object.keys((await userinfo(client, KARI.sub)).body).sort()).toEqual(['family_name', 'given_name', 'name', 'sid', 'sub']);
      await approveWithConsent(client, 'birthDate');
      expect(Object.keys((await userinfo(client, KARI.sub)).body).sort()).toEqual([
        'birthdate',
        'family_name',
        'given_name',
        'name',
        'sid',
        'sub',
      ]);
    } finally {
      await fresh.close();
    }
  });

  test('an unknown sub and another merchant’s user get the same 404', async () => {
    await approveWithConsent(merchantA, 'name');
    const nobody = randomUUID();
    const unknown = await userinfo(merchantB, nobody);
    const foreign = await userinfo(merchantB, KARI.sub);
    expectUserinfoError(unknown, 404);
    // Identical but for the sub asked about and the per-request instance (the trace id).
    const blank = (r: HttpResult, sub: string) =>
      JSON.stringify(r.body)
        .split(sub)
        .join('<sub>')
        .replace(/"instance":"[^"]+"/, '');
    expect(blank(foreign, KARI.sub)).toEqual(blank(unknown, nobody));
  });

  test('a sub that is not a UUID is a 400 naming it', async () => {
    const res = await userinfo(merchantA, 'not-a-sub');
    expectUserinfoError(res, 400);
    expect(res.body.extraInfo).toEqual({ sub: { reason: 'Must be a UUID' } });
  });

  test('credentials: none is a 401, no MSN a 400, a PSP a 403; a partner acting for the sales unit reads as its merchant', async () => {
    await approveWithConsent(merchantA, 'name');
    expectUserinfoError(await merchantA.raw('GET', `/vipps-userinfo-api/userinfo/${KARI.sub}`), 401);
    const noMsn = await merchantA.raw('GET', `/vipps-userinfo-api/userinfo/${KARI.sub}`, undefined, {
      Authorization: `Bearer ${await merchantA.accessToken()}`,
      'Ocp-Apim-Subscription-Key': 'test-key-123456',
    });
    expectUserinfoError(noMsn, 400);
    expect(noMsn.body.extraInfo['Merchant-Serial-Number']).toBeDefined();
    expectUserinfoError(await userinfo(new MerchantClient(t.baseUrl, PSP), KARI.sub), 403);
    expectUserinfoError(await userinfo(new MerchantClient(t.baseUrl, partnerFor('112233')), KARI.sub), 403);
    const asPartner = await userinfo(new MerchantClient(t.baseUrl, partnerFor('123456')), KARI.sub);
    expect(asPartner.status).toBe(200);
    expect(asPartner.body).toEqual((await userinfo(merchantA, KARI.sub)).body);
    expect((await userinfo(new MerchantClient(t.baseUrl, partnerFor('654321')), KARI.sub)).status).toBe(404);
  });
});

describe('consent on the landing page', () => {
  test('a payment asking for a profile is not approved without consent, and nothing is stored', async () => {
    const refused = await approveWithConsent(merchantA, 'nin', { consent: false });
    expect(refused.page).toContain('To approve, agree to share the information asked for.');
    expect((await merchantA.getPayment(refused.reference)).body.state).toBe('CREATED');
    const [row] = await forkEm(t.app.services.orm).execute<{ n: string | number }[]>(
      `select count(*) as n from user_consent c join payment p on p.id = c.payment_id where p.reference = ?`,
      [refused.reference],
    );
    expect(Number(row!.n)).toBe(0);
  });

  test('the consent is stored with the approval, with its event, for 168 hours after it', async () => {
    const approval = await approveWithConsent(merchantA, 'name email');
    const em = forkEm(t.app.services.orm);
    const consents = await em.execute<{ id: string; sub: string; msn: string; scope: string; consented_at: Date; expires_at: Date }[]>(
      `select c.* from user_consent c join payment p on p.id = c.payment_id where p.reference = ?`,
      [approval.reference],
    );
    expect(consents).toHaveLength(1);
    const consent = consents[0]!;
    expect({ sub: consent.sub, msn: consent.msn, scope: consent.scope }).toEqual({ sub: KARI.sub, msn: '123456', scope: 'name email' });
    expect(new Date(consent.expires_at).getTime() - new Date(consent.consented_at).getTime()).toBe(168 * 3600 * 1000);
    const events = await em.execute<{ name: string; payload: Record<string, unknown> }[]>(
      `select name, payload from domain_event where stream_type = 'user-consent' and stream_id = ?`,
      [consent.id],
    );
    expect(events).toEqual([
      {
        name: 'userinfo.consent.given.v1',
        payload: expect.objectContaining({ consentId: consent.id, sub: KARI.sub, reference: approval.reference, scope: 'name email' }),
      },
    ]);
    // The outbox records who shared what, never the shared data.
    expect(JSON.stringify(events)).not.toContain('Nordmann');
  });

  test('the approval and its consent commit together: when the consent cannot be stored, the payment stays CREATED', async () => {
    const em = forkEm(t.app.services.orm);
    const consentEvents = async () =>
      Number(
        (await em.execute<{ n: string | number }[]>(`select count(*) as n from domain_event where stream_type = 'user-consent'`))[0]!.n,
      );
    const eventsBefore = await consentEvents();
    // The database refuses every consent, as a failure between the approval's statements would; for this test only
    // (the file's app is shared: the trigger goes in the finally).
    await em.execute(`create function refuse_consent() returns trigger language plpgsql as $$
      begin raise exception 'consent refused for the test'; end $$`);
    try {
      await em.execute(`create trigger refuse_consent before insert on user_consent for each row execute function refuse_consent()`);
      const refused = await approveWithConsent(merchantA, 'name');
      expect((await merchantA.getPayment(refused.reference)).body.state).toBe('CREATED');
      expect((await merchantA.events(refused.reference)).body.map((e: { name: string }) => e.name)).toEqual(['CREATED']);
      expect(refused.userToken).toBeUndefined();
      expect(await consentEvents()).toBe(eventsBefore);
    } finally {
      await em.execute(`drop function refuse_consent() cascade`);
    }
  });

  // issue 19: force approve is the test user approving in the app, consent screen included.
  test('force approve records the consent to exactly the scopes asked for (given through force approve); userinfo answers at once', async () => {
    // Ola, who has shared nothing with A in this file's app (he shared with B only): what userinfo answers is this
    // approval's consent alone.
    expectUserinfoError(await userinfo(merchantA, OLA.sub), 404);
    const client = merchantA;
    const reference = newReference('forced-consent');
    expect((await client.createPayment({ reference, profile: { scope: 'name email' } })).status).toBe(201);
    // The 8-digit test number, as the pages take it.
    expect((await client.forceApprove(reference, { customer: { phoneNumber: '98765432' } })).status).toBe(200);
    expect((await client.getPayment(reference)).body.profile).toEqual({ sub: OLA.sub });
    const res = await userinfo(client, OLA.sub);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sub: OLA.sub,
      sid: expect.any(String),
      name: 'Ola Nordmann',
      given_name: 'Ola',
      family_name: 'Nordmann',
      email: 'ola.nordmann@example.com',
      email_verified: true,
    });
    const consents = await forkEm(t.app.services.orm).execute<{ scope: string; given_through: string }[]>(
      `select c.scope, c.given_through from user_consent c join payment p on p.id = c.payment_id where p.reference = ?`,
      [reference],
    );
    expect(consents).toEqual([{ scope: 'name email', given_through: 'force-approve' }]);
    // A payment without a profile scope records no consent.
    const plain = await client.authorizedPayment(1_000);
    const none = await forkEm(t.app.services.orm).execute(
      `select 1 from user_consent c join payment p on p.id = c.payment_id where p.reference = ?`,
      [plain],
    );
    expect(none).toEqual([]);
  });
});

describe('GET /vipps-userinfo-api/userinfo/ with the user access token', () => {
  test('the landing page hands the token to the returnUrl in its fragment; it reads the consented claims', async () => {
    const approval = await approveWithConsent(merchantA, 'name phoneNumber', { returnUrl: 'https://shop.example/done?order=7#top' });
    expect(approval.page).toMatch(
      /href="https:\/\/shop\.example\/done\?order=7#access_token=[^"&]+&amp;token_type=Bearer&amp;expires_in=3600&amp;scope=name\+phoneNumber"/,
    );
    // A JWT naming the user and the scopes consented to.
    const [header, payload, signature] = approval.userToken!.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString('utf8'))).toMatchObject({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'))).toMatchObject({ sub: KARI.sub, scope: 'name phoneNumber' });
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const res = await userinfoWithUserToken(approval.userToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sub: KARI.sub,
      sid: expect.any(String),
      name: 'Kari Nordmann',
      given_name: 'Kari',
      family_name: 'Nordmann',
      phone_number: '4791234567',
    });
    // Opened again, the landing page still shows what is shared, but hands the token over no more.
    const again = await (await fetch(approval.landingUrl)).text();
    expect(again).toContain('You share with Test Shop Online');
    expect(again).toContain('href="https://shop.example/done?order=7#top"');
    expect(again).not.toContain('access_token');
  });

  test('no token is handed over when the payment asked for no profile', async () => {
    const reference = `noprofile-${randomUUID()}`.slice(0, 40);
    const created = await merchantA.createPayment({ reference, returnUrl: 'https://shop.example/return' });
    const token = new URL(created.body.redirectUrl).searchParams.get('token')!;
    const page = await (
      await fetch(`${t.baseUrl}/wallet/landing/approve?token=${token}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'phoneNumber=91234567',
      })
    ).text();
    expect(page).toContain('href="https://shop.example/return"');
    expect(page).not.toContain('access_token');
  });

  test('refusals: no token, a merchant access token, a wrong or missing key, another sales unit', async () => {
    const { userToken } = await approveWithConsent(merchantA, 'email');
    expectUserinfoError(await userinfoWithUserToken(undefined), 401);
    expectUserinfoError(await userinfoWithUserToken(await merchantA.accessToken()), 401);
    expectUserinfoError(await userinfoWithUserToken(`${userToken}x`), 401);
    expectUserinfoError(await userinfoWithUserToken(userToken, { 'Ocp-Apim-Subscription-Key': 'no-such-key' }), 401);
    // Merchant B's own key does not make A's user's token readable to B.
    expectUserinfoError(await userinfoWithUserToken(userToken, { 'Ocp-Apim-Subscription-Key': 'test-key-654321' }), 403);
    expectUserinfoError(await userinfoWithUserToken(userToken, { 'Ocp-Apim-Subscription-Key': 'test-key-psp' }), 403);
    expectUserinfoError(await userinfoWithUserToken(userToken, { 'Merchant-Serial-Number': '654321' }), 403);
    expect((await userinfoWithUserToken(userToken, { 'Merchant-Serial-Number': '123456' })).status).toBe(200);
  });

  test('the user token is no access token of any API', async () => {
    const { userToken } = await approveWithConsent(merchantA, 'email');
    const res = await merchantA.raw('GET', '/epayment/v1/payments/anything-at-all', undefined, {
      Authorization: `Bearer ${userToken}`,
      'Ocp-Apim-Subscription-Key': 'test-key-123456',
      'Merchant-Serial-Number': '123456',
    });
    expect(res.status).toBe(401);
  });
});

describe('a merchant token without the subscription key (issue 19 point 6)', () => {
  test('userinfo/{sub} answers as with the key, as the userinfo Postman collection sends it; a wrong key is still 401', async () => {
    const approval = await approveWithConsent(merchantA, 'name email');
    const withKey = await userinfo(merchantA, approval.sub);
    expect(withKey.status).toBe(200);
    // The collection's headers: the token, the MSN and the Vipps-System-* headers, no Ocp-Apim-Subscription-Key.
    const asCollection = await merchantA.raw('GET', `/vipps-userinfo-api/userinfo/${approval.sub}`, undefined, {
      Authorization: `Bearer ${await merchantA.accessToken()}`,
      'Merchant-Serial-Number': '123456',
      'Vipps-System-Name': 'Postman',
      'Vipps-System-Version': '1',
      'Vipps-System-Plugin-Name': 'userinfo-collection',
      'Vipps-System-Plugin-Version': '1',
    });
    expect({ status: asCollection.status, body: asCollection.body }).toEqual({ status: 200, body: withKey.body });
    expectUserinfoError(await userinfo(merchantA, approval.sub, { 'Ocp-Apim-Subscription-Key': 'test-key-654321' }), 401);
    // The token still names the sales units: another merchant's token without a key reads nothing of A's.
    const other = await merchantB.raw('GET', `/vipps-userinfo-api/userinfo/${approval.sub}`, undefined, {
      Authorization: `Bearer ${await merchantB.accessToken()}`,
      'Merchant-Serial-Number': '654321',
    });
    expectUserinfoError(other, 404);
  });
});

// Moves the shared clock: last in the file.
describe('the 168-hour time limit', () => {
  test('readable until 168 hours after the approval, then a 403; the user token expires with its hour', async () => {
    const approval = await approveWithConsent(merchantA, 'birthDate');
    t.clock.advance(61 * 60 * 1000);
    expectUserinfoError(await userinfoWithUserToken(approval.userToken), 401);
    t.clock.advance(168 * 3600 * 1000 - 62 * 60 * 1000);
    const before = await userinfo(new MerchantClient(t.baseUrl), KARI.sub);
    expect(before.status).toBe(200);
    expect(before.body.birthdate).toBe('1990-01-01');
    t.clock.advance(2 * 60 * 1000);
    // Kari's earlier consents to A are older still: all have expired.
    const after = await userinfo(new MerchantClient(t.baseUrl), KARI.sub);
    expectUserinfoError(after, 403);
    // Another merchant still cannot tell the sub exists.
    expectUserinfoError(await userinfo(new MerchantClient(t.baseUrl, MERCHANT_B), KARI.sub), 404);
  });
});

describe('the interface describes itself', () => {
  test('/vipps-userinfo-api/openapi.json lists both operations with the userinfo error body', async () => {
    const res = await merchantA.raw('GET', '/vipps-userinfo-api/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths).sort()).toEqual(['/vipps-userinfo-api/userinfo/', '/vipps-userinfo-api/userinfo/{sub}']);
    expect(res.body.components.schemas.Error.properties.status).toEqual({ type: 'string' });
    // Both take a bearer token (a merchant's, or the user's) and the subscription key; a merchant's token alone names its client.
    expect(res.body.paths['/vipps-userinfo-api/userinfo/{sub}'].get.security).toEqual([
      { bearer: [], subscriptionKey: [] },
      { bearer: [] },
    ]);
    expect(res.body.paths['/vipps-userinfo-api/userinfo/'].get.security).toEqual([{ bearer: [], subscriptionKey: [] }]);
    expect(Object.keys(res.body.components.securitySchemes).sort()).toEqual(['bearer', 'subscriptionKey']);
  });
});
