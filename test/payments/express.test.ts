import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forkEm } from '../../src/platform/db/orm.js';
import { shippingCallbackSettings } from '../../src/payments/shipping-callback.js';
import { useTestApp } from '../support/app-fixture.js';
import { newReference, type MerchantClient } from '../support/merchant-client.js';
import { OperatorClient } from '../support/operator-client.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { connectionParamsOf, eventually, Subscriber } from '../support/subscriber.js';

/**
 * Express in ePayment (issue 34 part 1, FACTS §14.1) and profile data on the payment (part 2, §14.2), through REST,
 * the graph and the landing page, against a real database.
 */
const t = useTestApp();

const KARI = { phoneNumber: '4791234567', sub: 'c06c4afe-d9e1-4c5d-939a-177d752a0944' };
const nok = (value: number) => ({ currency: 'NOK', value });

/** WooCommerce 6.0.5's groups: one OTHER/OTHER group per rate, isDefault on the group only, PHP-rounded amounts. */
const WOO_GROUPS = [
  {
    isDefault: true,
    priority: 0,
    brand: 'OTHER',
    type: 'OTHER',
    options: [{ priority: 0, name: 'Flat rate', id: 'flat_rate:1', amount: { value: 4900.0, currency: 'NOK' } }],
  },
  {
    isDefault: false,
    priority: 1,
    brand: 'OTHER',
    type: 'OTHER',
    options: [{ priority: 1, name: 'Free shipping', id: 'free_shipping:2$x', amount: { value: 0, currency: 'NOK' } }],
  },
];

function expressBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    userFlow: 'WEB_REDIRECT',
    returnUrl: 'https://shop.example/return',
    profile: { scope: 'name email phoneNumber address' },
    shipping: { fixedOptions: WOO_GROUPS },
    amount: nok(10_000),
    ...overrides,
  };
}

/** The raw JSON text of a create, so amounts go as PHP writes them (`4900.0`). */
async function createRaw(json: string, key = newReference()): Promise<{ status: number; body: any }> {
  return t.merchant.raw('POST', '/epayment/v1/payments', json, await t.merchant.headers({ 'Idempotency-Key': key }));
}

const errorCode = (body: any) => body.extraDetails?.find((d: any) => d.name === 'ErrorCode')?.reason;

const GRAPH_CREATE = `mutation($i: CreatePaymentInput!) { createPayment(input: $i) { payment { reference } userErrors { code errorCode field } } }`;

/** The graph's Express create input: the REST body's fields under the graph's names. */
function graphInput(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    idempotencyKey: newReference(),
    reference: newReference(),
    amount: nok(10_000),
    paymentMethod: 'WALLET',
    userFlow: 'WEB_REDIRECT',
    returnUrl: 'https://shop.example/return',
    profileScope: 'name email phoneNumber address',
    shipping: {
      fixedOptions: WOO_GROUPS.map((g) => ({
        ...g,
        options: g.options.map((o) => ({ ...o, amount: { ...o.amount, value: Math.round(o.amount.value) } })),
      })),
    },
    ...overrides,
  };
}

async function createExpress(
  overrides: Record<string, unknown> = {},
  merchant: MerchantClient = t.merchant,
): Promise<{ reference: string; token: string }> {
  const reference = newReference();
  const res = await merchant.createPayment({ reference, ...expressBody(overrides) });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return { reference, token: new URL(res.body.redirectUrl).searchParams.get('token')! };
}

function landing(token: string, query: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.baseUrl}/wallet/landing?${new URLSearchParams({ token, ...query })}`);
}

function approve(token: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${t.baseUrl}/wallet/landing/approve?token=${encodeURIComponent(token)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.baseUrl },
    body: new URLSearchParams(form).toString(),
  });
}

describe('the create of an Express payment', () => {
  test("WooCommerce's groups as its PHP writes them are taken, and stored as given", async () => {
    const reference = newReference();
    const body = JSON.stringify({ reference, paymentMethod: { type: 'WALLET' }, ...expressBody(), minimumUserAge: null }).replace(
      '"value":4900',
      '"value":4900.0',
    );
    expect(body).toContain('4900.0');
    const res = await createRaw(body);
    expect(res.status).toBe(201);
    const got = await t.merchant.getPayment(reference);
    expect(got.body.amount).toEqual(nok(10_000));
    expect(got.body).not.toHaveProperty('shippingDetails');
    expect(got.body).not.toHaveProperty('userDetails');
  });

  test.each([
    ['paymentMethod.type other than WALLET', { paymentMethod: { type: 'CARD' } }, '4160', 'paymentMethod.type'],
    ['the scopes without address', { profile: { scope: 'name email phoneNumber' } }, '4080', 'profile.scope'],
    ['a scope more', { profile: { scope: 'name email phoneNumber address birthDate' } }, '4080', 'profile.scope'],
    ['no scope', { profile: undefined }, '4080', 'profile.scope'],
    ['neither fixed nor dynamic options', { shipping: {} }, '4140', 'shipping'],
  ])('%s: refused with its code', async (_, overrides, code, field) => {
    const res = await t.merchant.createPayment({ reference: newReference(), ...expressBody(overrides) });
    expect(res.status).toBe(400);
    expect(errorCode(res.body)).toBe(code);
    expect(res.body.extraDetails).toEqual(expect.arrayContaining([expect.objectContaining({ name: field })]));
  });

  test('the scopes in any order are the set', async () => {
    const res = await t.merchant.createPayment({
      reference: newReference(),
      ...expressBody({ profile: { scope: 'address phoneNumber email name' } }),
    });
    expect(res.status).toBe(201);
  });

  test.each([
    [
      'both fixed and dynamic options',
      { fixedOptions: WOO_GROUPS, dynamicOptions: { callbackUrl: 'https://shop.example/cb', callbackAuthorizationToken: 'tk' } },
      'shipping',
    ],
    [
      'an option in another currency',
      { fixedOptions: [{ ...WOO_GROUPS[0], options: [{ ...WOO_GROUPS[0]!.options[0], amount: { currency: 'EUR', value: 1 } }] }] },
      'shipping.fixedOptions[0].options[0].amount.currency',
    ],
    [
      'a negative amount',
      { fixedOptions: [{ ...WOO_GROUPS[0], options: [{ ...WOO_GROUPS[0]!.options[0], amount: nok(-1) }] }] },
      'shipping.fixedOptions[0].options[0].amount.value',
    ],
    [
      'an amount above the maximum (65 000 000)',
      { fixedOptions: [{ ...WOO_GROUPS[0], options: [{ ...WOO_GROUPS[0]!.options[0], amount: nok(65_000_001) }] }] },
      'shipping.fixedOptions[0].options[0].amount.value',
    ],
    [
      'an amount with a fraction',
      { fixedOptions: [{ ...WOO_GROUPS[0], options: [{ ...WOO_GROUPS[0]!.options[0], amount: nok(49.5) }] }] },
      'shipping.fixedOptions[0].options[0].amount.value',
    ],
    [
      'an option id twice',
      { fixedOptions: [WOO_GROUPS[0], { ...WOO_GROUPS[1], options: [{ ...WOO_GROUPS[1]!.options[0], id: 'flat_rate:1' }] }] },
      'shipping.fixedOptions[1].options[0].id',
    ],
    [
      'an id of 101 characters',
      { fixedOptions: [{ ...WOO_GROUPS[0], options: [{ ...WOO_GROUPS[0]!.options[0], id: 'x'.repeat(101) }] }] },
      'shipping.fixedOptions[0].options[0].id',
    ],
    ['an unknown brand', { fixedOptions: [{ ...WOO_GROUPS[0], brand: 'PIGEON' }] }, 'shipping.fixedOptions[0].brand'],
  ])('%s: a plain 400 naming the field, no code', async (_, shipping, field) => {
    const res = await t.merchant.createPayment({ reference: newReference(), ...expressBody({ shipping }) });
    expect(res.status).toBe(400);
    expect(errorCode(res.body)).toBeUndefined();
    expect(res.body.extraDetails).toEqual(expect.arrayContaining([expect.objectContaining({ name: field })]));
  });

  test.each([
    ['not HTTPS', 'http://shop.example/wc-api/vipps_shipping_details', /HTTPS/],
    ['a private address', 'https://10.0.0.7/wc-api/vipps_shipping_details', /private/],
  ])('a callbackUrl the outbound URL policy refuses (%s) is refused at the create, naming the field', async (_, callbackUrl, reason) => {
    const shipping = { dynamicOptions: { callbackUrl, callbackAuthorizationToken: 'tk' } };
    const res = await t.merchant.createPayment({ reference: newReference(), ...expressBody({ shipping }) });
    expect(res.status).toBe(400);
    const refused = res.body.extraDetails?.find((d: any) => d.name === 'shipping.dynamicOptions.callbackUrl');
    expect(refused?.reason).toMatch(reason);
  });

  test('option ids of 100 characters with $ and : are taken', async () => {
    const id = `flat_rate:1$${'a'.repeat(88)}`;
    expect(id).toHaveLength(100);
    const res = await t.merchant.createPayment({
      reference: newReference(),
      ...expressBody({ shipping: { fixedOptions: [{ ...WOO_GROUPS[0], options: [{ ...WOO_GROUPS[0]!.options[0], id }] }] } }),
    });
    expect(res.status).toBe(201);
  });

  test.each([
    ['WEB_REDIRECT (what WooCommerce sends)', {}],
    ['NATIVE_REDIRECT', { userFlow: 'NATIVE_REDIRECT' }],
  ])('userFlow %s is taken: it opens the landing page, where the user chooses the shipping', async (_, overrides) => {
    const res = await t.merchant.createPayment({ reference: newReference(), ...expressBody(overrides) });
    expect(res.status).toBe(201);
    expect(new URL(res.body.redirectUrl).pathname).toBe('/wallet/landing');
  });

  test.each([
    ['PUSH_MESSAGE', { userFlow: 'PUSH_MESSAGE', returnUrl: undefined, customer: { phoneNumber: KARI.phoneNumber } }],
    ['QR', { userFlow: 'QR', returnUrl: undefined }],
  ])('userFlow %s is refused: a plain 400 naming userFlow, no code, on both faces', async (flow, overrides) => {
    const res = await t.merchant.createPayment({ reference: newReference(), ...expressBody(overrides) });
    expect(res.status).toBe(400);
    expect(errorCode(res.body)).toBeUndefined();
    expect(res.body.extraDetails).toEqual([{ name: 'userFlow', reason: 'Must be WEB_REDIRECT or NATIVE_REDIRECT for an Express payment' }]);
    const graph = await t.merchant.graphql(GRAPH_CREATE, { i: graphInput({ ...overrides, userFlow: flow, returnUrl: null }) });
    expect(graph.body.data.createPayment.userErrors).toEqual([{ code: 'VALIDATION_FAILED', errorCode: null, field: 'userFlow' }]);
  });

  test('on the graph too, an option amount above the maximum is refused naming the field', async () => {
    const over = [{ ...WOO_GROUPS[0], options: [{ ...WOO_GROUPS[0]!.options[0], amount: nok(65_000_001) }] }];
    const res = await t.merchant.graphql(GRAPH_CREATE, { i: graphInput({ shipping: { fixedOptions: over } }) });
    expect(res.body.data.createPayment.userErrors).toEqual([
      { code: 'VALIDATION_FAILED', errorCode: null, field: 'shipping.fixedOptions[0].options[0].amount.value' },
    ]);
  });

  test('a create without shipping is not Express, whatever its scope (WooCommerce without shipping)', async () => {
    const res = await t.merchant.createPayment({
      reference: newReference(),
      userFlow: 'WEB_REDIRECT',
      returnUrl: 'https://shop.example/return',
      profile: { scope: 'name email phoneNumber' },
      paymentMethod: { type: 'WALLET' },
      customer: { customerInteraction: 'CUSTOMER_NOT_PRESENT' },
      minimumUserAge: null,
    });
    expect(res.status).toBe(201);
  });

  test('the operator turns Express off for a unit on its graph: its Express creates answer 5020 on both faces; on again, taken', async () => {
    const operator = new OperatorClient(t.baseUrl);
    const setExpress = async (msn: string, enabled: boolean) =>
      (
        await operator.graphql(
          'mutation($i: SetSalesUnitExpressInput!) { setSalesUnitExpress(input: $i) { msn expressEnabled userErrors { code field } } }',
          { i: { msn, enabled } },
        )
      ).body.data.setSalesUnitExpress;
    expect((await t.otherMerchant.createPayment({ reference: newReference(), ...expressBody() })).status).toBe(201);
    expect(await setExpress('654321', false)).toEqual({ msn: '654321', expressEnabled: false, userErrors: [] });
    try {
      const refused = await t.otherMerchant.createPayment({ reference: newReference(), ...expressBody() });
      expect(refused.status).toBe(400);
      expect(errorCode(refused.body)).toBe('5020');
      expect(refused.body.extraDetails).toContainEqual(expect.objectContaining({ name: 'shipping' }));
      const graph = await t.otherMerchant.graphql(GRAPH_CREATE, { i: graphInput({}) });
      expect(graph.body.data.createPayment.userErrors).toEqual([{ code: 'EXPRESS_NOT_ALLOWED', errorCode: '5020', field: 'shipping' }]);
      // A create without shipping is unaffected, and so is the other unit.
      expect((await t.otherMerchant.createPayment({ reference: newReference() })).status).toBe(201);
      expect((await t.merchant.createPayment({ reference: newReference(), ...expressBody() })).status).toBe(201);
    } finally {
      expect(await setExpress('654321', true)).toEqual({ msn: '654321', expressEnabled: true, userErrors: [] });
    }
    expect((await t.otherMerchant.createPayment({ reference: newReference(), ...expressBody() })).status).toBe(201);
    expect(await setExpress('999999', false)).toEqual({
      msn: null,
      expressEnabled: null,
      userErrors: [{ code: 'OPERATOR_NOT_FOUND', field: 'msn' }],
    });
  });

  test('the graph takes the same shipping and answers the same codes', async () => {
    const mutation = `mutation($i: CreatePaymentInput!) { createPayment(input: $i) { payment { reference amount { value } } userErrors { code field } } }`;
    const ok = await t.merchant.graphql(mutation, { i: graphInput({}) });
    expect(ok.body.data.createPayment.userErrors).toEqual([]);
    const scope = await t.merchant.graphql(mutation, { i: graphInput({ profileScope: 'name' }) });
    expect(scope.body.data.createPayment.userErrors).toEqual([{ code: 'EXPRESS_SCOPE', field: 'profile.scope' }]);
    const neither = await t.merchant.graphql(mutation, { i: graphInput({ shipping: {} }) });
    expect(neither.body.data.createPayment.userErrors).toEqual([{ code: 'EXPRESS_SHIPPING_OPTIONS_MISSING', field: 'shipping' }]);
  });
});

describe('the approval of an Express payment', () => {
  test('force approve answers 10020 "Approve not allowed"', async () => {
    const { reference } = await createExpress();
    const res = await t.merchant.forceApprove(reference);
    expect(res.status).toBe(400);
    expect(errorCode(res.body)).toBe('10020');
    expect(res.body.title).toBe('Approve not allowed');
    expect((await t.merchant.getPayment(reference)).body.state).toBe('CREATED');
  });

  test("the landing page shows Kari's addresses, the groups in words, the default chosen and the total", async () => {
    const { token } = await createExpress();
    const page = await (await landing(token, { phoneNumber: '91234567' })).text();
    expect(page).toContain('Storgata 1, 0155 Oslo, NO');
    expect(page).toContain('Dronning Eufemias gate 16, 0191 Oslo, NO');
    expect(page).toMatch(/value="flat_rate:1" data-total="kr\u00a0149,00" required checked/);
    expect(page).toContain('Flat rate: <strong>kr\u00a049,00</strong>');
    expect(page).toContain('Free shipping: <strong>Free</strong>');
    expect(page).toMatch(/Total with shipping: <strong data-total-with-shipping>kr\u00a0149,00<\/strong>/);
    const before = await (await landing(token)).text();
    expect(before).toContain('name="phoneNumber"');
    expect(before).not.toContain('Storgata 1');
  });

  test('approved with the second address and an option: the total is reserved, recorded with the choice, and captured', async () => {
    const { reference, token } = await createExpress();
    const res = await approve(token, { phoneNumber: '91234567', consent: 'yes', address: '1', shippingOptionId: 'flat_rate:1' });
    expect(res.status).toBe(200);
    const got = (await t.merchant.getPayment(reference)).body;
    expect(got.state).toBe('AUTHORIZED');
    expect(got.amount).toEqual(nok(14_900));
    expect(got.aggregate.authorizedAmount).toEqual(nok(14_900));
    expect(got.shippingDetails).toEqual({
      address: { addressLine1: 'Dronning Eufemias gate 16', addressLine2: null, city: 'Oslo', postCode: '0191', country: 'NO' },
      shippingOptionId: 'flat_rate:1',
      shippingOptionName: 'Flat rate',
      shippingCost: 4_900,
    });
    expect(got.profile).toEqual({ sub: KARI.sub });
    expect(got.userDetails).toEqual({
      firstName: 'Kari',
      lastName: 'Nordmann',
      email: 'kari.nordmann@example.com',
      mobileNumber: KARI.phoneNumber,
      addresses: [
        { addressLine1: 'Storgata 1', addressLine2: null, city: 'Oslo', postCode: '0155', country: 'NO' },
        { addressLine1: 'Dronning Eufemias gate 16', addressLine2: null, city: 'Oslo', postCode: '0191', country: 'NO' },
      ],
    });
    const events = (await t.merchant.events(reference)).body.map((e: any) => [e.name, e.amount.value]);
    expect(events).toEqual([
      ['CREATED', 10_000],
      ['AUTHORIZED', 14_900],
    ]);
    expect((await t.merchant.modify(reference, 'capture', 14_900)).status).toBe(200);
    expect((await t.merchant.modify(reference, 'refund', 14_900)).status).toBe(200);

    const graph = await t.merchant.graphql(
      `query($r: String!) { payment(reference: $r) { amount { value } shippingDetails { shippingOptionId shippingCost { value currency } address { postCode } } userDetails { firstName mobileNumber addresses { addressLine1 } } } }`,
      { r: reference },
    );
    expect(graph.body.data.payment).toEqual({
      amount: { value: 14_900 },
      shippingDetails: { shippingOptionId: 'flat_rate:1', shippingCost: { value: 4_900, currency: 'NOK' }, address: { postCode: '0191' } },
      userDetails: {
        firstName: 'Kari',
        mobileNumber: KARI.phoneNumber,
        addresses: [{ addressLine1: 'Storgata 1' }, { addressLine1: 'Dronning Eufemias gate 16' }],
      },
    });
  });

  test('a typed address in a country the shop does not ship to is told in words, and nothing is approved', async () => {
    const { reference, token } = await createExpress();
    const typed = { address: 'other', addressLine1: 'Strøget 1', city: 'København', postCode: '1160', country: 'DK' };
    const page = await (await landing(token, { phoneNumber: '91234567', ...typed })).text();
    expect(page).toContain('The shop does not ship to DK.');
    const res = await approve(token, { phoneNumber: '91234567', consent: 'yes', ...typed, shippingOptionId: 'flat_rate:1' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('The shop does not ship to DK.');
    expect((await t.merchant.getPayment(reference)).body.state).toBe('CREATED');
  });

  test('allowedCountries lets the user ship abroad; an option not offered is refused', async () => {
    const { reference, token } = await createExpress({ shipping: { fixedOptions: WOO_GROUPS, allowedCountries: ['NO', 'SE'] } });
    const typed = { address: 'other', addressLine1: 'Drottninggatan 1', city: 'Stockholm', postCode: '11151', country: 'SE' };
    const unknown = await approve(token, { phoneNumber: '91234567', consent: 'yes', ...typed, shippingOptionId: 'nope' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('Choose a shipping option.');
    const res = await approve(token, { phoneNumber: '91234567', consent: 'yes', ...typed, shippingOptionId: 'free_shipping:2$x' });
    expect(res.status).toBe(200);
    const got = (await t.merchant.getPayment(reference)).body;
    expect(got.amount).toEqual(nok(10_000));
    expect(got.shippingDetails.address).toEqual({
      addressLine1: 'Drottninggatan 1',
      addressLine2: null,
      city: 'Stockholm',
      postCode: '11151',
      country: 'SE',
    });
  });

  test('on the unit that captures directly (654321) nothing is captured at approval: the total is reserved, the merchant captures it', async () => {
    const { reference, token } = await createExpress({}, t.otherMerchant);
    const res = await approve(token, { phoneNumber: '91234567', consent: 'yes', address: '0', shippingOptionId: 'flat_rate:1' });
    expect(res.status).toBe(200);
    const got = (await t.otherMerchant.getPayment(reference)).body;
    expect({ state: got.state, amount: got.amount, aggregate: got.aggregate }).toEqual({
      state: 'AUTHORIZED',
      amount: nok(14_900),
      aggregate: { authorizedAmount: nok(14_900), capturedAmount: nok(0), cancelledAmount: nok(0), refundedAmount: nok(0) },
    });
    expect((await t.otherMerchant.events(reference)).body.map((e: any) => [e.name, e.amount.value])).toEqual([
      ['CREATED', 10_000],
      ['AUTHORIZED', 14_900],
    ]);
    expect((await t.otherMerchant.modify(reference, 'capture', 14_900)).status).toBe(200);
    expect((await t.otherMerchant.getPayment(reference)).body.aggregate.capturedAmount).toEqual(nok(14_900));
  });

  test('a total with shipping on a failure trigger (100 + 51 = 151) is declined as that failure; a trigger create amount plus shipping is not', async () => {
    const at51 = [{ ...WOO_GROUPS[0], options: [{ ...WOO_GROUPS[0]!.options[0], amount: nok(51) }] }];
    const declined = await createExpress({ amount: nok(100), shipping: { fixedOptions: at51 } });
    const res = await approve(declined.token, { phoneNumber: '91234567', consent: 'yes', address: '0', shippingOptionId: 'flat_rate:1' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('there is not enough money on the account');
    const read = (await t.merchant.getPayment(declined.reference)).body;
    expect({ state: read.state, authorized: read.aggregate.authorizedAmount.value }).toEqual({ state: 'CREATED', authorized: 0 });
    expect(read).not.toHaveProperty('shippingDetails');
    expect((await t.merchant.events(declined.reference)).body.map((e: any) => e.name)).toEqual(['CREATED']);
    // The amount the user approves is the total: a create of 151 with 49 NOK shipping is 5051, approved.
    const approved = await createExpress({ amount: nok(151) });
    const ok = await approve(approved.token, { phoneNumber: '91234567', consent: 'yes', address: '0', shippingOptionId: 'flat_rate:1' });
    expect(ok.status).toBe(200);
    expect((await t.merchant.getPayment(approved.reference)).body.amount).toEqual(nok(5_051));
  });

  test('a total with shipping above the maximum is refused to the user', async () => {
    const big = [{ ...WOO_GROUPS[0], options: [{ ...WOO_GROUPS[0]!.options[0], amount: nok(65_000_000) }] }];
    const { reference, token } = await createExpress({ amount: nok(1_000), shipping: { fixedOptions: big } });
    const res = await approve(token, { phoneNumber: '91234567', consent: 'yes', address: '0', shippingOptionId: 'flat_rate:1' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('The total with shipping is more than a payment may be.');
    expect((await t.merchant.getPayment(reference)).body.state).toBe('CREATED');
  });
});

describe('profile data on a payment that is not Express', () => {
  test('userDetails holds exactly the consented scopes; birthDate has no field there', async () => {
    const reference = newReference();
    expect((await t.merchant.createPayment({ reference, profile: { scope: 'email birthDate' } })).status).toBe(201);
    expect((await t.merchant.forceApprove(reference)).status).toBe(200);
    const got = (await t.merchant.getPayment(reference)).body;
    expect(got.userDetails).toEqual({ email: 'kari.nordmann@example.com' });
    expect(got).not.toHaveProperty('shippingDetails');
    expect(got.amount.value).toBe(got.aggregate.authorizedAmount.value);
  });

  test('no scope, no userDetails', async () => {
    const reference = newReference();
    expect((await t.merchant.createPayment({ reference })).status).toBe(201);
    expect((await t.merchant.forceApprove(reference)).status).toBe(200);
    expect((await t.merchant.getPayment(reference)).body).not.toHaveProperty('userDetails');
  });
});

describe('the authorized webhook and subscription event', () => {
  const receiver = new WebhookReceiver();
  beforeAll(async () => {
    await receiver.start();
    const registered = await t.merchant.request('POST', '/webhooks/v1/webhooks', {
      url: receiver.url('/express'),
      events: ['epayments.payment.authorized.v1', 'epayments.payment.created.v1'],
    });
    expect(registered.status).toBe(201);
    receiver.route('/express', registered.body.secret);
  });
  afterAll(() => receiver.close());

  test('carry the total, profile.sub, userDetails and shippingDetails, added at delivery; the outbox keeps none of them', async () => {
    const subscriber = new Subscriber(t.baseUrl, await connectionParamsOf(t.merchant));
    const { reference, token } = await createExpress();
    try {
      subscriber.subscribe(
        `subscription($r: String) { paymentEvents(reference: $r, names: [AUTHORIZED]) { event { amount { value } } userDetails { firstName lastName email mobileNumber } shippingDetails { shippingOptionId shippingCost { value } address { addressLine1 } } } }`,
        { r: reference },
      );
      await eventually(() => t.app.app.services.events.subscriberCount > 0, 'the subscription to register');
      expect(
        (await approve(token, { phoneNumber: '91234567', consent: 'yes', address: '0', shippingOptionId: 'flat_rate:1' })).status,
      ).toBe(200);
      await receiver.waitFor(
        (r) => r.some((w) => w.body.reference === reference && w.body.name === 'AUTHORIZED'),
        'the authorized webhook',
      );
      const created = receiver.at('/express').find((w) => w.body.reference === reference && w.body.name === 'CREATED')!;
      const authorized = receiver.at('/express').find((w) => w.body.reference === reference && w.body.name === 'AUTHORIZED')!;
      expect(authorized.verified).toBe(true);
      expect(created.body.amount).toEqual(nok(10_000));
      expect(created.body).not.toHaveProperty('userDetails');
      expect(authorized.body).toEqual(
        expect.objectContaining({
          amount: nok(14_900),
          profile: { sub: KARI.sub },
          userDetails: expect.objectContaining({ firstName: 'Kari', lastName: 'Nordmann', mobileNumber: KARI.phoneNumber }),
          shippingDetails: {
            address: { addressLine1: 'Storgata 1', addressLine2: null, city: 'Oslo', postCode: '0155', country: 'NO' },
            shippingOptionId: 'flat_rate:1',
            shippingOptionName: 'Flat rate',
            shippingCost: 4_900,
          },
        }),
      );
      // The graph's StreamEvent.webhookBody is the body the delivery carried, personal data included: what listen forwards.
      const events = await t.merchant.graphql(
        'query($n: [String!]) { events(first: 10, filter: { names: $n }) { edges { node { eventId webhookBody } } } }',
        { n: ['epayments.payment.authorized.v1'] },
      );
      const shown = (events.body.data.events.edges as { node: { eventId: string; webhookBody: string } }[]).find(
        (edge) => edge.node.eventId === authorized.eventId,
      );
      expect(events.body.errors).toBeUndefined();
      expect(JSON.parse(shown!.node.webhookBody)).toEqual(authorized.body);
      const [notification] = await subscriber.waitFor(1);
      expect(notification!.data.paymentEvents).toEqual({
        event: { amount: { value: 14_900 } },
        userDetails: { firstName: 'Kari', lastName: 'Nordmann', email: 'kari.nordmann@example.com', mobileNumber: KARI.phoneNumber },
        shippingDetails: { shippingOptionId: 'flat_rate:1', shippingCost: { value: 4_900 }, address: { addressLine1: 'Storgata 1' } },
      });
      const outbox = await forkEm(t.app.app.services.orm).execute<{ payload: unknown }[]>(
        `select payload from domain_event where stream_type = 'payment' and payload->>'reference' = ?`,
        [reference],
      );
      const stored = JSON.stringify(outbox.map((r) => r.payload));
      expect(stored).not.toContain('Kari');
      expect(stored).not.toContain('Storgata');
    } finally {
      await subscriber.close();
    }
  });
});

describe('dynamic options', () => {
  let server: Server;
  let url: string;
  const calls: { headers: IncomingMessage['headers']; body: any }[] = [];
  const shopAnswer = () => ({ status: 200, body: JSON.stringify({ groups: WOO_GROUPS }) });
  /** What the shop answers for the address it is sent; `delayMs`: it answers that late. */
  let answer: (body: any) => { status: number; body: string; delayMs?: number } = shopAnswer;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        const body = JSON.parse(text);
        calls.push({ headers: req.headers, body });
        const { status, body: out, delayMs } = answer(body);
        setTimeout(() => res.writeHead(status, { 'content-type': 'application/json' }).end(out), delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wc-api/vipps_shipping_details?tk=abc&id=42`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const dynamic = () => ({ shipping: { dynamicOptions: { callbackUrl: url, callbackAuthorizationToken: 'abc' } } });

  test('the address goes to callbackUrl as given, camelCase, with the token verbatim; the answer is offered and approved', async () => {
    calls.length = 0;
    const { reference, token } = await createExpress(dynamic());
    const page = await (await landing(token, { phoneNumber: '91234567' })).text();
    expect(page).toContain('Flat rate: <strong>kr\u00a049,00</strong>');
    expect(calls[0]!.body).toEqual({
      reference,
      addressLine1: 'Storgata 1',
      addressLine2: null,
      city: 'Oslo',
      postCode: '0155',
      country: 'NO',
    });
    expect(calls[0]!.headers.authorization).toBe('abc');
    const res = await approve(token, { phoneNumber: '91234567', consent: 'yes', address: '0', shippingOptionId: 'flat_rate:1' });
    expect(res.status).toBe(200);
    expect((await t.merchant.getPayment(reference)).body.amount).toEqual(nok(14_900));
  });

  test.each([
    ['empty groups (WooCommerce when no rate applies)', () => ({ status: 200, body: '{"groups": []}' })],
    ['a 400', () => ({ status: 400, body: '{}' })],
    ['a body that is not JSON', () => ({ status: 200, body: 'oops' })],
  ])('%s: the user is told the shop cannot ship there', async (_, given) => {
    answer = given;
    try {
      const { token } = await createExpress(dynamic());
      const page = await (await landing(token, { phoneNumber: '91234567' })).text();
      expect(page).toContain('The shop cannot ship to this address.');
    } finally {
      answer = shopAnswer;
    }
  });

  test('a shop that does not answer within PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS: the user is told it cannot ship there', async () => {
    // The 8 s default, shortened for this test alone (an answer on its way on a busy machine must not time out in the
    // others); the shop answers with good options, but only well after the timeout.
    const config = t.app.app.services.config;
    config.shippingCallbackTimeoutMs = 300;
    answer = () => ({ ...shopAnswer(), delayMs: 1_500 });
    try {
      const { token } = await createExpress(dynamic());
      const page = await (await landing(token, { phoneNumber: '91234567' })).text();
      expect(page).toContain('The shop cannot ship to this address.');
      expect(page).not.toContain('Flat rate');
    } finally {
      config.shippingCallbackTimeoutMs = 8_000;
      answer = shopAnswer;
    }
  });

  test('an answer over 256 KiB is refused unread: the user is told the shop cannot ship there', async () => {
    // Good groups followed by whitespace: valid JSON that would offer Flat rate if it were read.
    const padded = shopAnswer().body + ' '.repeat(256 * 1024);
    answer = () => ({ status: 200, body: padded });
    try {
      const { token } = await createExpress(dynamic());
      calls.length = 0;
      const page = await (await landing(token, { phoneNumber: '91234567' })).text();
      expect(calls).toHaveLength(1);
      expect(page).toContain('The shop cannot ship to this address.');
      expect(page).not.toContain('Flat rate');
    } finally {
      answer = shopAnswer;
    }
  });

  test('a new address asks again: the shop is called with it and its options are offered and approved', async () => {
    const bike = [
      {
        brand: 'PORTERBUDDY',
        type: 'HOME_DELIVERY',
        isDefault: true,
        options: [{ id: 'bike:1', name: 'Bike courier', amount: nok(9_900) }],
      },
    ];
    answer = (body) => ({ status: 200, body: JSON.stringify({ groups: body.postCode === '0155' ? WOO_GROUPS : bike }) });
    try {
      const { reference, token } = await createExpress(dynamic());
      calls.length = 0;
      const first = await (await landing(token, { phoneNumber: '91234567', address: '0' })).text();
      expect(first).toContain('Flat rate: <strong>kr\u00a049,00</strong>');
      const second = await (await landing(token, { phoneNumber: '91234567', address: '1' })).text();
      expect(second).toContain('Bike courier: <strong>kr\u00a099,00</strong>');
      expect(second).not.toContain('Flat rate');
      const typed = { address: 'other', addressLine1: 'Kongens gate 2', city: 'Trondheim', postCode: '7011', country: 'NO' };
      expect(await (await landing(token, { phoneNumber: '91234567', ...typed })).text()).toContain('Bike courier');
      expect(calls.map((c) => [c.body.addressLine1, c.body.postCode])).toEqual([
        ['Storgata 1', '0155'],
        ['Dronning Eufemias gate 16', '0191'],
        ['Kongens gate 2', '7011'],
      ]);
      const res = await approve(token, { phoneNumber: '91234567', consent: 'yes', address: '1', shippingOptionId: 'bike:1' });
      expect(res.status).toBe(200);
      const got = (await t.merchant.getPayment(reference)).body;
      expect(got.amount).toEqual(nok(19_900));
      expect(got.shippingDetails).toMatchObject({
        shippingOptionId: 'bike:1',
        shippingOptionName: 'Bike courier',
        address: { postCode: '0191' },
      });
    } finally {
      answer = shopAnswer;
    }
  });

  test('the calls per payment are bounded', async () => {
    const { token } = await createExpress(dynamic());
    const bound = shippingCallbackSettings.maxCallsPerPayment;
    calls.length = 0;
    for (let i = 0; i < bound; i++) await landing(token, { phoneNumber: '91234567' });
    expect(calls).toHaveLength(bound);
    const page = await (await landing(token, { phoneNumber: '91234567' })).text();
    expect(calls).toHaveLength(bound);
    expect(page).toContain('could not be asked about shipping again');
  });
});
