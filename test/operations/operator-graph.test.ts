import { forkEm } from '../../src/platform/db/orm.js';
import { useTestApp } from '../support/app-fixture.js';
import { MerchantClient } from '../support/merchant-client.js';
import { OperatorClient, operatorMutations } from '../support/operator-client.js';
import type { ClientCredentials, HttpResult } from '../support/principal-client.js';
import { eventually, Subscriber } from '../support/subscriber.js';

/**
 * Issue 21 point 1, for tools: the operator's API client takes its token at /accesstoken/get and drives the back
 * office through the operator mutations, the same services as the command line. Nothing else of the graph or REST
 * serves it, and no merchant, partner or PSP may use its mutations.
 */
const t = useTestApp();
let operator: OperatorClient;

beforeAll(() => {
  operator = new OperatorClient(t.baseUrl);
});

async function tokenStatus(credentials: ClientCredentials): Promise<number> {
  const res = await operator.raw('POST', '/accesstoken/get', undefined, {
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
    'Ocp-Apim-Subscription-Key': credentials.subscriptionKey,
  });
  return res.status;
}

async function mutate<T = any>(name: string, query: string, input: Record<string, unknown>): Promise<T> {
  const res = await operator.graphql(query, { i: input });
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data[name].userErrors).toEqual([]);
  return res.body.data[name] as T;
}

async function operatorEvents(): Promise<{ name: string; payload: any; msn: string }[]> {
  const rows = await forkEm(t.app.app.services.orm).execute<{ name: string; payload: unknown; msn: string }[]>(
    `select name, payload, msn from domain_event where stream_type = 'operator-action' order by id`,
  );
  return rows.map((r) => ({ ...r, payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload }));
}

describe('the operator mutations', () => {
  test('onboard a partner, a merchant, its sales unit and client; the client pays; its secret rotates with an overlap', async () => {
    const partner = await mutate(
      'createPartner',
      'mutation($i: CreatePartnerInput!) { createPartner(input: $i) { partner { partnerId name status } userErrors { code field message } } }',
      { name: 'Verktøypartner AS' },
    );
    expect(partner.partner).toEqual({ partnerId: expect.stringMatching(/^\d+$/), name: 'Verktøypartner AS', status: 'ACTIVE' });
    const partnerId = partner.partner.partnerId as string;

    const merchant = await mutate(
      'createMerchant',
      'mutation($i: CreateMerchantInput!) { createMerchant(input: $i) { merchant { merchantId name orgNumber status } userErrors { code field message } } }',
      { orgNumber: '920000029' },
    );
    expect(merchant.merchant).toMatchObject({ name: 'Nytt Firma AS', orgNumber: '920000029', status: 'ACTIVE' });
    const merchantId = merchant.merchant.merchantId as string;

    const unit = await mutate(
      'createSalesUnit',
      `mutation($i: CreateSalesUnitInput!) { createSalesUnit(input: $i) {
         salesUnit { msn merchantId name captureType longLivingPaymentsAllowed skipLandingPageAllowed recurringAllowed }
         userErrors { code field message } } }`,
      { merchantId, name: 'Nytt Firma Nettbutikk', captureType: 'ReserveCapture', recurringAllowed: true },
    );
    expect(unit.salesUnit).toEqual({
      msn: expect.stringMatching(/^\d{6}$/),
      merchantId,
      name: 'Nytt Firma Nettbutikk',
      captureType: 'ReserveCapture',
      longLivingPaymentsAllowed: false,
      skipLandingPageAllowed: false,
      recurringAllowed: true,
    });
    const msn = unit.salesUnit.msn as string;

    const connected = await mutate(
      'connectSalesUnit',
      'mutation($i: ConnectSalesUnitInput!) { connectSalesUnit(input: $i) { partnerId msn merchantConsent userErrors { code field message } } }',
      { partnerId, msn },
    );
    expect(connected).toMatchObject({ partnerId, msn, merchantConsent: false });
    const consent = 'mutation($i: ConsentInput!) { recordConsent(input: $i) { msns userErrors { code field message } } }';
    expect((await mutate('recordConsent', consent, { merchantId, partnerId })).msns).toEqual([msn]);
    const withdraw = 'mutation($i: ConsentInput!) { withdrawConsent(input: $i) { msns userErrors { code field message } } }';
    expect((await mutate('withdrawConsent', withdraw, { merchantId, partnerId })).msns).toEqual([msn]);

    const issued = await mutate(
      'createApiClient',
      `mutation($i: CreateApiClientInput!) { createApiClient(input: $i) {
         apiClient { clientId clientSecret subscriptionKey ownerKind ownerId } userErrors { code field message } } }`,
      { ownerKind: 'MERCHANT', ownerId: merchantId },
    );
    const client = issued.apiClient as ClientCredentials & { ownerKind: string; ownerId: string };
    expect(client).toMatchObject({ ownerKind: 'MERCHANT', ownerId: merchantId });

    // The returned credentials take a token and create a payment over REST, in the new sales unit.
    const shop = new MerchantClient(t.baseUrl, { msn, ...client });
    const created = await shop.createPayment();
    expect(created.status).toBe(201);
    // A new unit is not approved for long-living payments: one is refused as before issue 34, 5050 naming expiresAt.
    const longLiving = {
      userFlow: 'QR',
      returnUrl: undefined,
      expiresAt: new Date(t.app.clock.now().getTime() + 2 * 24 * 3_600_000).toISOString(),
      receipt: {
        orderLines: [
          { name: 'Socks', id: 'l1', totalAmount: 10_000, totalAmountExcludingTax: 8_000, totalTaxAmount: 2_000, taxPercentage: 25 },
        ],
        bottomLine: { currency: 'NOK' },
      },
    };
    const refused = await shop.createPayment(longLiving);
    expect({ status: refused.status, title: refused.body.title, details: refused.body.extraDetails }).toEqual({
      status: 400,
      title: 'Long-living payment not allowed',
      details: [
        { name: 'expiresAt', reason: 'The sales unit may not create long-living payments' },
        { name: 'ErrorCode', reason: '5050' },
      ],
    });

    // Rotation: during the overlap both secrets take tokens; after retire only the new one.
    const rotated = await mutate(
      'rotateClientSecret',
      `mutation($i: RotateClientSecretInput!) { rotateClientSecret(input: $i) {
         clientId clientSecret previousSecretRetiresAt userErrors { code field message } } }`,
      { clientId: client.clientId, overlapMs: 3_600_000 },
    );
    expect(rotated.clientSecret).not.toBe(client.clientSecret);
    expect(Date.parse(rotated.previousSecretRetiresAt)).toBeGreaterThan(Date.now());
    const renewed = { ...client, clientSecret: rotated.clientSecret as string };
    expect([await tokenStatus(client), await tokenStatus(renewed)]).toEqual([200, 200]);
    await mutate(
      'retireClientSecret',
      'mutation($i: RetireClientSecretInput!) { retireClientSecret(input: $i) { clientId userErrors { code field message } } }',
      { clientId: client.clientId },
    );
    expect([await tokenStatus(client), await tokenStatus(renewed)]).toEqual([401, 200]);
    expect((await new MerchantClient(t.baseUrl, { msn, ...renewed }).createPayment()).status).toBe(201);

    // Every action is an outbox event whose actor is the operator's client, and none carries a secret or key.
    const events = await operatorEvents();
    expect(events.map((e) => e.name)).toEqual([
      'operator.partner.created.v1',
      'operator.merchant.created.v1',
      'operator.sales-unit.created.v1',
      'operator.sales-unit.connected.v1',
      'operator.merchant-consent.recorded.v1',
      'operator.merchant-consent.withdrawn.v1',
      'operator.api-client.created.v1',
      'operator.api-client.secret-rotated.v1',
      'operator.api-client.secret-retired.v1',
    ]);
    expect(new Set(events.map((e) => e.payload.actor))).toEqual(new Set(['test-client-operator']));
    const text = JSON.stringify(events);
    for (const secret of [client.clientSecret, client.subscriptionKey, renewed.clientSecret]) expect(text).not.toContain(secret);
    expect(events[6]!.payload.subject).toEqual({ clientId: client.clientId, kind: 'merchant', ownerId: merchantId });
  });

  test('a PSP and its client; a partner client; deactivations', async () => {
    const psp = await mutate(
      'createPsp',
      'mutation($i: CreatePspInput!) { createPsp(input: $i) { psp { pspId name } userErrors { code field message } } }',
      { name: 'Verktøy-PSP AS' },
    );
    const issue = `mutation($i: CreateApiClientInput!) { createApiClient(input: $i) {
      apiClient { clientId clientSecret subscriptionKey ownerKind ownerId } userErrors { code field message } } }`;
    const pspClient = (await mutate('createApiClient', issue, { ownerKind: 'PSP', ownerId: psp.psp.pspId })).apiClient;
    expect(pspClient).toMatchObject({ ownerKind: 'PSP', ownerId: psp.psp.pspId });
    expect(await tokenStatus(pspClient)).toBe(200);

    const partner = await mutate(
      'createPartner',
      'mutation($i: CreatePartnerInput!) { createPartner(input: $i) { partner { partnerId } userErrors { code field message } } }',
      { name: 'Kortvarig partner AS', partnerId: '777000' },
    );
    expect(partner.partner.partnerId).toBe('777000');
    const partnerClient = (
      await mutate('createApiClient', issue, { ownerKind: 'PARTNER', ownerId: '777000', clientId: 'tool-made-partner' })
    ).apiClient;
    expect(partnerClient).toMatchObject({ clientId: 'tool-made-partner', ownerKind: 'PARTNER', ownerId: '777000' });
    expect(await tokenStatus(partnerClient)).toBe(200);

    const deactivated = await mutate(
      'deactivatePartner',
      'mutation($i: DeactivatePartnerInput!) { deactivatePartner(input: $i) { partnerId userErrors { code field message } } }',
      { partnerId: '777000' },
    );
    expect(deactivated.partnerId).toBe('777000');

    const merchant = await mutate(
      'createMerchant',
      'mutation($i: CreateMerchantInput!) { createMerchant(input: $i) { merchant { merchantId } userErrors { code field message } } }',
      { orgNumber: '920000037', name: 'Ny Kafé' },
    );
    const merchantId = merchant.merchant.merchantId as string;
    const unit = await mutate(
      'createSalesUnit',
      'mutation($i: CreateSalesUnitInput!) { createSalesUnit(input: $i) { salesUnit { msn } userErrors { code field message } } }',
      { merchantId, name: 'Ny Kafé disk', captureType: 'DirectCapture' },
    );
    await mutate(
      'deactivateMerchant',
      'mutation($i: DeactivateMerchantInput!) { deactivateMerchant(input: $i) { merchantId userErrors { code field message } } }',
      { merchantId },
    );
    const [row] = await forkEm(t.app.app.services.orm).execute<{ status: string }[]>(`select status from sales_unit where msn = ?`, [
      unit.salesUnit.msn,
    ]);
    expect(row).toEqual({ status: 'DEACTIVATED' });
  });

  test('refusals are typed userErrors: the business registry, unknown owners, taken ids', async () => {
    const merchant =
      'mutation($i: CreateMerchantInput!) { createMerchant(input: $i) { merchant { merchantId } userErrors { code field message } } }';
    for (const [orgNumber, code] of [
      ['920000045', 'ORG_NUMBER_SUB_ENTITY'],
      ['920000053', 'ORG_NUMBER_NOT_ACTIVE'],
      ['123', 'ORG_NUMBER_MALFORMED'],
    ] as const) {
      const res = await operator.graphql(merchant, { i: { orgNumber } });
      expect(res.body.data.createMerchant).toEqual({ merchant: null, userErrors: [expect.objectContaining({ code })] });
    }
    const issue = 'mutation($i: CreateApiClientInput!) { createApiClient(input: $i) { apiClient { clientId } userErrors { code field } } }';
    const unknown = await operator.graphql(issue, { i: { ownerKind: 'PSP', ownerId: 'not-a-psp' } });
    expect(unknown.body.data.createApiClient).toEqual({ apiClient: null, userErrors: [{ code: 'OPERATOR_NOT_FOUND', field: 'pspId' }] });
    const taken = await operator.graphql(issue, { i: { ownerKind: 'PARTNER', ownerId: '100200', clientId: 'test-client-partner' } });
    expect(taken.body.data.createApiClient).toEqual({ apiClient: null, userErrors: [{ code: 'OPERATOR_CONFLICT', field: 'clientId' }] });
    const rotate = 'mutation($i: RotateClientSecretInput!) { rotateClientSecret(input: $i) { clientSecret userErrors { code field } } }';
    const negative = await operator.graphql(rotate, { i: { clientId: 'test-client-654321', overlapMs: -1 } });
    expect(negative.body.data.rotateClientSecret).toEqual({
      clientSecret: null,
      userErrors: [{ code: 'OPERATOR_INVALID', field: 'overlapMs' }],
    });
  });
});

// Issue 33, N10: one merchant per organisation number, and no control character in any operator input.
describe('operator input', () => {
  const ORG_NUMBER = '933000028';
  const createMerchant =
    'mutation($i: CreateMerchantInput!) { createMerchant(input: $i) { merchant { merchantId } userErrors { code field message } } }';

  test('an organisation number is one merchant’s: a second create, even at the same moment, is refused naming it', async () => {
    // An organisation of the registry that no test made a merchant of.
    await forkEm(t.app.app.services.orm).execute(
      `insert into business_registry_entry (org_number, name, kind, status) values ('${ORG_NUMBER}', 'Samtidig AS', 'main', 'active')`,
    );
    const [first, second] = await Promise.all([
      operator.graphql(createMerchant, { i: { orgNumber: ORG_NUMBER } }),
      operator.graphql(createMerchant, { i: { orgNumber: ORG_NUMBER, name: 'Samtidig AS igjen' } }),
    ]);
    const outcomes = [first.body.data.createMerchant, second.body.data.createMerchant];
    const made = outcomes.filter((o) => o.merchant !== null);
    expect(made).toHaveLength(1);
    expect(outcomes.find((o) => o.merchant === null).userErrors).toEqual([
      { code: 'OPERATOR_CONFLICT', field: 'orgNumber', message: expect.stringMatching(`organisation number ${ORG_NUMBER} already`) },
    ]);
    const again = await operator.graphql(createMerchant, { i: { orgNumber: ORG_NUMBER } });
    expect(again.body.data.createMerchant).toEqual({
      merchant: null,
      userErrors: [{ code: 'OPERATOR_CONFLICT', field: 'orgNumber', message: expect.stringContaining(made[0].merchant.merchantId) }],
    });
    // A merchant of the test environment's seed too.
    const seeded = await operator.graphql(createMerchant, { i: { orgNumber: '920000002' } });
    expect(seeded.body.data.createMerchant.userErrors).toEqual([
      expect.objectContaining({ code: 'OPERATOR_CONFLICT', field: 'orgNumber' }),
    ]);
    const [{ count }] = await forkEm(t.app.app.services.orm).execute<{ count: number }[]>(
      `select count(*)::int as count from merchant where org_number = '${ORG_NUMBER}'`,
    );
    expect(count).toBe(1);
  });

  test.each([
    [
      'createPartner',
      'mutation($i: CreatePartnerInput!) { createPartner(input: $i) { partner { partnerId } } }',
      { name: 'Bell\u0007 AS' },
    ],
    ['createMerchant', createMerchant, { orgNumber: '920000029', name: 'Nul\u0000l AS' }],
    ['createPsp', 'mutation($i: CreatePspInput!) { createPsp(input: $i) { psp { pspId } } }', { name: 'Esc\u001b PSP' }],
  ])('%s: a control character in the input is refused naming the field, and nothing is made', async (name, query, input) => {
    const before = (await operatorEvents()).length;
    const res = await operator.graphql(query, { i: input });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })]);
    expect(res.body.errors[0].message).toMatch(/^\$i\.(name|orgNumber): Must not contain control characters/);
    expect((await operatorEvents()).length).toBe(before);
    expect(name).toBeDefined();
  });
});

describe('the operator credential covers no sales unit', () => {
  const refusedWith403 = (res: HttpResult) => {
    expect(res.status).toBe(403);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
  };

  test('it is refused every merchant field of the graph, even __typename beside an operator field', async () => {
    refusedWith403(await operator.graphql('{ __typename }'));
    refusedWith403(await operator.graphql('{ viewer { kind } }'));
    refusedWith403(await operator.graphql('{ payments(first: 1) { edges { cursor } } }'));
    refusedWith403(
      await operator.graphql('mutation { __typename createPsp(input: { name: "Mixed" }) { psp { pspId } userErrors { code } } }'),
    );
  });

  test('naming a sales unit does not let it in: 403 on the graph, and on REST', async () => {
    const res = await operator.graphql('{ viewer { kind } }', {}, { 'Merchant-Serial-Number': '123456' });
    expect(res.status).toBe(403);
    const payment = await operator.request('GET', '/epayment/v1/payments/any-reference', undefined, { 'Merchant-Serial-Number': '123456' });
    expect(payment.status).toBe(403);
    expect(payment.body.extraDetails[0].name).toBe('Authorization');
  });

  test('over graphql-ws its socket opens, but every subscription is refused before it starts', async () => {
    const { 'Content-Type': _json, ...params } = await operator.headers();
    const subscriber = new Subscriber(t.baseUrl, params).subscribe('subscription { paymentEvents { event { reference } } }');
    try {
      await eventually(() => subscriber.failure !== undefined, 'the refusal');
      expect(subscriber.failure).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
      expect(subscriber.results).toEqual([]);
    } finally {
      await subscriber.close();
    }
  });

  test.each(['merchant', 'partner', 'psp'] as const)('a %s is refused every operator mutation, and nothing changes', async (kind) => {
    const client = kind === 'merchant' ? t.merchant : kind === 'partner' ? t.partner : t.psp;
    const before = (await operatorEvents()).length;
    for (const [name, { query, variables }] of Object.entries(operatorMutations)) {
      const res = await client.graphql(query, variables);
      expect({ name, status: res.status, code: res.body.errors?.[0]?.extensions?.code }).toEqual({ name, status: 403, code: 'FORBIDDEN' });
      expect(res.body.data).toBeUndefined();
    }
    // A root fragment does not hide one from the resolver's own check.
    const hidden = await client.graphql(
      'mutation { ...M } fragment M on Mutation { createPsp(input: { name: "Hidden" }) { psp { pspId } userErrors { code } } }',
    );
    expect(hidden.body.data?.createPsp ?? null).toBeNull();
    expect(hidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await operatorEvents()).length).toBe(before);
  });
});
