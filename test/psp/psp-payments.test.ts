import { forkEm } from '../../src/platform/db/orm.js';
import { passesLuhn } from '../../src/psp/network-token.js';
import { MerchantClient } from '../support/merchant-client.js';
import { Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import type { PspClient } from '../support/psp-client.js';
import { eventually, PspEndpoint } from './psp-endpoint.js';
import { createSecondPsp, newIds, PSP_MSN, testPspClient } from './psp-fixture.js';

let t: TestApp;
let psp: ReturnType<typeof testPspClient>;
let endpoint: PspEndpoint;
let pathCount = 0;

/** The make-payment callback's timeout here (15 s in production): the test of a PSP that never answers waits it out. */
const CALLBACK_TIMEOUT_MS = 2_000;

beforeAll(async () => {
  t = await startTestApp({ pspCallbackTimeoutMs: CALLBACK_TIMEOUT_MS });
  psp = testPspClient(t);
  endpoint = await new PspEndpoint().start();
});
afterAll(async () => {
  await t.close();
  await endpoint.close();
});

function initBody(overrides: Record<string, unknown> = {}) {
  pathCount++;
  return {
    ...newIds(),
    amount: 12_300,
    currency: 'NOK',
    pspRedirectUrl: 'https://psp.example/return',
    makePaymentUrl: endpoint.url(`/make-payment/${pathCount}`),
    makePaymentToken: `psp-secret-${pathCount}`,
    paymentText: 'Ordre 1',
    ...overrides,
  };
}

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, client: PspClient = psp) =>
  client.request(method, path, body, { ...psp.msnHeaders, ...headers });

async function initiate(overrides: Record<string, unknown> = {}) {
  const body = initBody(overrides);
  const res = await call('POST', '/psp/v3/psppayments/init', body);
  expect(res.status).toBe(200);
  const token = new URL(res.body.vippsRedirectUrl).searchParams.get('token')!;
  return { body, res, token, path: new URL(body.makePaymentUrl as string).pathname };
}

const details = (id: string) => call('GET', `/psp/v3/psppayments/${id}/details`);
const approve = (id: string, token: string, customerPhoneNumber = '91234567') =>
  call('POST', `/psp/v3/integration-test/psppayments/${id}/approve`, { customerPhoneNumber, token });

async function stateOf(id: string): Promise<string> {
  const res = await psp.graphql('query($id: String!) { pspPayment(pspTransactionId: $id) { state } }', { id }, psp.msnHeaders);
  return res.body.data.pspPayment.state;
}

describe('initiate', () => {
  test('a DEACTIVATED sales unit takes no PSP payment (errorCode 21) until it is active again', async () => {
    // The unit's status is management's (PATCH /management/v1/sales-units/{msn}); the PSP's test unit has no
    // merchant login there, so the test sets it where management keeps it.
    const setStatus = (status: string) =>
      forkEm(t.app.services.orm).execute('update sales_unit set status = ? where msn = ?', [status, PSP_MSN]);
    await setStatus('DEACTIVATED');
    try {
      const refused = await call('POST', '/psp/v3/psppayments/init', initBody());
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual([expect.objectContaining({ errorCode: '21' })]);
    } finally {
      await setStatus('ACTIVE');
    }
    expect((await call('POST', '/psp/v3/psppayments/init', initBody())).status).toBe(200);
  });

  test('answers 200 with the ids and a landing page URL of this service carrying the token', async () => {
    const { body, res } = await initiate();
    expect(res.body).toEqual({
      pspTransactionId: body.pspTransactionId,
      merchantOrderId: body.merchantOrderId,
      vippsRedirectUrl: expect.any(String),
    });
    const url = new URL(res.body.vippsRedirectUrl);
    expect(url.origin).toBe(t.baseUrl);
    expect(url.pathname).toBe('/wallet/psp');
    expect(await stateOf(body.pspTransactionId)).toBe('INITIATED');
  });

  test.each([
    ['pspTransactionId with capitals', { pspTransactionId: 'ABC123' }, 'pspTransactionId'],
    ['pspTransactionId of 37 characters', { pspTransactionId: 'a'.repeat(37) }, 'pspTransactionId'],
    ['merchantOrderId with a space', { merchantOrderId: 'a b' }, 'merchantOrderId'],
    ['merchantOrderId of 51 characters', { merchantOrderId: 'a'.repeat(51) }, 'merchantOrderId'],
    ['a currency other than NOK', { currency: 'EUR' }, 'currency'],
    ['an amount past int32', { amount: 2_147_483_648 }, 'amount'],
    ['a fractional amount', { amount: 10.5 }, 'amount'],
    ['a customerMobileNumber of 9 digits', { customerMobileNumber: '912345678' }, 'customerMobileNumber'],
    ['a makePaymentToken of 256 characters', { makePaymentToken: 'x'.repeat(256) }, 'makePaymentToken'],
    ['a scope other than psp_subscription', { scope: 'other' }, 'scope'],
    ['a makePaymentUrl over plain HTTP to a public host', { makePaymentUrl: 'http://psp.example/cb' }, 'makePaymentUrl'],
    ['a relative pspRedirectUrl', { pspRedirectUrl: '/back' }, 'pspRedirectUrl'],
  ])('refuses %s with 400 and the PSP error array (code 51)', async (_, overrides, field) => {
    const res = await call('POST', '/psp/v3/psppayments/init', initBody(overrides));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      expect.arrayContaining([{ errorCode: '51', errorMessage: expect.stringContaining(field), contextId: expect.any(String) }]),
    );
  });

  test('a PSP payment is stored under a time-ordered id (UUID version 7), as payments are', async () => {
    const { body } = await initiate();
    const rows = await forkEm(t.app.services.orm).execute<{ id: string }[]>(
      'select id::text from psp_payment where psp_transaction_id = ?',
      [body.pspTransactionId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('a repeated pspTransactionId is code 44; a repeated merchantOrderId of the sales unit is code 99', async () => {
    const { body } = await initiate();
    const again = await call('POST', '/psp/v3/psppayments/init', initBody({ pspTransactionId: body.pspTransactionId }));
    expect(again.status).toBe(400);
    expect(again.body[0]).toMatchObject({ errorCode: '44' });
    const order = await call('POST', '/psp/v3/psppayments/init', initBody({ merchantOrderId: body.merchantOrderId }));
    expect(order.status).toBe(400);
    expect(order.body[0]).toMatchObject({ errorCode: '99' });
  });

  test('skipLandingPage needs a valid customerMobileNumber (the sales unit is allowed to skip)', async () => {
    const res = await call('POST', '/psp/v3/psppayments/init', initBody({ skipLandingPage: true }));
    expect(res.status).toBe(400);
    expect(res.body[0].errorMessage).toMatch(/customerMobileNumber/);
    await initiate({ skipLandingPage: true, customerMobileNumber: '91234567' });
  });

  test('headers: Psp-Id is required and must be the PSP of the token; a merchant token is refused', async () => {
    const noPspId = await psp.raw('POST', '/psp/v3/psppayments/init', initBody(), { ...(await psp.headers(psp.msnHeaders)), 'Psp-Id': '' });
    expect(noPspId.status).toBe(400);
    const other = await call('POST', '/psp/v3/psppayments/init', initBody(), { 'Psp-Id': '00000000-0000-4000-8000-000000000000' });
    expect(other.status).toBe(403);
    const merchant = new MerchantClient(t.baseUrl);
    const res = await merchant.request('POST', '/psp/v3/psppayments/init', initBody(), { 'Psp-Id': psp.pspId });
    expect(res.status).toBe(403);
    expect(Array.isArray(res.body)).toBe(true);
  });
});

describe('approval and the make-payment callback', () => {
  test('force approve sends the callback with the PSP token; 200 OK makes the payment RESERVED', async () => {
    const { body, token, path } = await initiate();
    const approved = await approve(body.pspTransactionId, token);
    expect(approved.status).toBe(200);
    await eventually(() => endpoint.at(path).length === 1, 'the callback');
    const [callback] = endpoint.at(path);
    expect(callback!.authorization).toBe(body.makePaymentToken);
    expect(callback!.body).toMatchObject({
      pspTransactionId: body.pspTransactionId,
      merchantSerialNumber: PSP_MSN,
      paymentState: 'ACCEPTED',
      binNumber: expect.stringMatching(/^\d{6}$/),
      operations: [{ operation: '3dssuccess' }],
      paymentInstrument: 'TOKEN',
      networkToken: {
        number: expect.stringMatching(/^(4\d|5[1-5])\d{14}$/),
        cryptogram: expect.any(String),
        expiryMonth: expect.stringMatching(/^\d{2}$/),
        expiryYear: expect.stringMatching(/^\d{4}$/),
        tokenType: expect.stringMatching(/^(VISA|MASTERCARD)$/),
        eci: expect.any(String),
      },
    });
    expect(passesLuhn(callback!.body.networkToken.number)).toBe(true);
    expect(callback!.body.binNumber).toBe(callback!.body.networkToken.number.slice(0, 6));
    await eventually(async () => (await stateOf(body.pspTransactionId)) === 'RESERVED', 'RESERVED');
    const res = await details(body.pspTransactionId);
    expect(res.status).toBe(200);
    expect(res.body.transactionSummary).toEqual({
      capturedAmount: 0,
      remainingAmountToCapture: 12_300,
      refundedAmount: 0,
      remainingAmountToRefund: 0,
    });
    expect(res.body.transactionLogHistory).toEqual([
      {
        amount: 12_300,
        paymentText: 'Ordre 1',
        timeStamp: expect.stringMatching(/\+00:00$/),
        operation: 'RESERVED',
        operationSuccess: true,
      },
    ]);
  });

  test.each([
    ['paymentInfo.status FAIL', 'FAIL' as const],
    ['HTTP 500', { status: 500 }],
  ])('an answer of %s makes the payment FAILED', async (_, answer) => {
    const { body, token, path } = await initiate();
    endpoint.answer(path, answer);
    expect((await approve(body.pspTransactionId, token)).status).toBe(200);
    await eventually(async () => (await stateOf(body.pspTransactionId)) === 'FAILED', 'FAILED');
    expect(endpoint.at(path)).toHaveLength(1);
    expect((await details(body.pspTransactionId)).body.transactionLogHistory).toEqual([
      expect.objectContaining({ operation: 'RESERVED', operationSuccess: false }),
    ]);
  });

  test('a refused connection makes the payment FAILED', async () => {
    const { body, token } = await initiate({ makePaymentUrl: 'http://127.0.0.1:9/refused' });
    expect((await approve(body.pspTransactionId, token)).status).toBe(200);
    await eventually(async () => (await stateOf(body.pspTransactionId)) === 'FAILED', 'FAILED');
  });

  test('no answer within the callback timeout (15 s unless PAYGRAPH_PSP_CALLBACK_TIMEOUT_MS says otherwise) makes the payment FAILED', async () => {
    const { body, token, path } = await initiate();
    endpoint.answer(path, { hang: 30_000 });
    expect((await approve(body.pspTransactionId, token)).status).toBe(200);
    expect(await stateOf(body.pspTransactionId)).toBe('ACCEPTED');
    await eventually(() => endpoint.at(path).length === 1, 'the callback');
    await eventually(async () => (await stateOf(body.pspTransactionId)) === 'FAILED', 'FAILED');
  });

  test('force approve: the token must be the payment’s, the user a test user who approved before; only once', async () => {
    const { body, token } = await initiate();
    expect((await approve(body.pspTransactionId, 'wrong')).status).toBe(400);
    const unready = await approve(body.pspTransactionId, token, '98765432');
    expect(unready.status).toBe(400);
    expect(unready.body[0].errorMessage).toMatch(/landing page/);
    expect((await approve(body.pspTransactionId, token, '12345678')).status).toBe(400);
    expect((await approve(body.pspTransactionId, token)).status).toBe(200);
    expect((await approve(body.pspTransactionId, token)).status).toBe(400);
  });

  test('the user cancelling on the landing page sends USER_CANCEL', async () => {
    const { body, token, path } = await initiate();
    const res = await fetch(`${t.baseUrl}/wallet/psp/cancel?token=${encodeURIComponent(token)}`, { method: 'POST' });
    expect(res.status).toBe(200);
    await eventually(() => endpoint.at(path).length === 1, 'the callback');
    expect(endpoint.at(path)[0]!.body.paymentState).toBe('USER_CANCEL');
    expectNoCardData(endpoint.at(path)[0]!.body);
    expect(await stateOf(body.pspTransactionId)).toBe('USER_CANCEL');
  });

  test('approving on the landing page sends ACCEPTED', async () => {
    const { body, token, path } = await initiate();
    const res = await fetch(`${t.baseUrl}/wallet/psp/approve?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'phoneNumber=91234567',
    });
    expect(res.status).toBe(200);
    await eventually(() => endpoint.at(path).length === 1, 'the callback');
    expect(endpoint.at(path)[0]!.body.paymentState).toBe('ACCEPTED');
    await eventually(async () => (await stateOf(body.pspTransactionId)) === 'RESERVED', 'RESERVED');
  });

  test('failure-trigger amounts (151, 186) are ePayment’s: a PSP payment of one is approved and RESERVED, on the page and by force', async () => {
    const onPage = await initiate({ amount: 151 });
    const page = await fetch(`${t.baseUrl}/wallet/psp/approve?token=${encodeURIComponent(onPage.token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'phoneNumber=91234567',
    });
    expect(page.status).toBe(200);
    const forced = await initiate({ amount: 186 });
    expect((await approve(forced.body.pspTransactionId, forced.token)).status).toBe(200);
    for (const { body, path } of [onPage, forced]) {
      await eventually(() => endpoint.at(path).length === 1, 'the callback');
      expect(endpoint.at(path)[0]!.body.paymentState).toBe('ACCEPTED');
      await eventually(async () => (await stateOf(body.pspTransactionId)) === 'RESERVED', 'RESERVED');
      expect((await details(body.pspTransactionId)).body.transactionSummary.remainingAmountToCapture).toBe(body.amount);
    }
  });

  test('with no action for 10 minutes the timeout job sends TIMEOUT', async () => {
    const { body, path, token } = await initiate();
    t.clock.advance(10 * 60 * 1000 + 1);
    await eventually(() => endpoint.at(path).length === 1, 'the callback');
    expect(endpoint.at(path)[0]!.body.paymentState).toBe('TIMEOUT');
    expectNoCardData(endpoint.at(path)[0]!.body);
    expect(await stateOf(body.pspTransactionId)).toBe('TIMEOUT');
    expect((await approve(body.pspTransactionId, token)).status).toBe(400);
  });
});

/** The callback keeps the definition's required fields, with no usable credential in them. */
function expectNoCardData(callback: Record<string, unknown>): void {
  expect(callback).toMatchObject({ binNumber: '', operations: [{ operation: '3dscancel' }], paymentInstrument: 'TOKEN' });
  expect(callback.networkToken).toEqual({ number: '', cryptogram: '', expiryMonth: '', expiryYear: '', tokenType: 'VISA', eci: '' });
  expect(JSON.stringify(callback)).not.toMatch(/\d{12,}/);
}

describe('details and tenancy', () => {
  test('an unknown transaction is a 404 in the PSP error array', async () => {
    const res = await details('unknown1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual([{ errorCode: '42', errorMessage: expect.any(String), contextId: expect.any(String) }]);
  });

  test('another PSP cannot act for this PSP’s sales unit, nor see its payment', async () => {
    const { body } = await initiate();
    const second = await createSecondPsp(t);
    const res = await second.request('GET', `/psp/v3/psppayments/${body.pspTransactionId}/details`, undefined, psp.msnHeaders);
    expect(res.status).toBe(403);
    const graph = await second.graphql(
      'query($id: String!) { pspPayment(pspTransactionId: $id) { state } }',
      { id: body.pspTransactionId },
      psp.msnHeaders,
    );
    expect(graph.status).toBe(403);
  });
});

describe('recurring on a stored token', () => {
  test('psp_subscription gives a userToken; card data is handed out on it until the agreement is deleted', async () => {
    const { body, token, path } = await initiate({ scope: 'psp_subscription' });
    await approve(body.pspTransactionId, token);
    await eventually(() => endpoint.at(path).length === 1, 'the callback');
    const userToken = endpoint.at(path)[0]!.body.userToken as string;
    expect(userToken.split('.')).toHaveLength(3);
    const ids = newIds();
    const payment = await call(
      'POST',
      '/psp/v3/psppayments/payments',
      { ...ids, amount: 5_000, currency: 'NOK', paymentText: 'Monthly' },
      { 'User-Token': userToken },
    );
    expect(payment.status).toBe(200);
    expect(payment.body).toMatchObject({ ...ids, paymentInstrument: 'TOKEN', networkToken: { number: expect.stringMatching(/^\d{16}$/) } });
    expect(passesLuhn(payment.body.networkToken.number)).toBe(true);
    expect(
      (await call('POST', '/psp/v3/psppayments/payments', { ...newIds(), amount: 5_000, currency: 'NOK' }, { 'User-Token': 'not-a-jwt' }))
        .body[0].errorCode,
    ).toBe('121');
    expect((await call('DELETE', '/psp/v3/psppayments/agreements', undefined, { 'User-Token': userToken })).status).toBe(200);
    const refused = await call(
      'POST',
      '/psp/v3/psppayments/payments',
      { ...newIds(), amount: 5_000, currency: 'NOK' },
      { 'User-Token': userToken },
    );
    expect(refused.status).toBe(400);
    expect(refused.body[0].errorCode).toBe('123');
    expect((await call('DELETE', '/psp/v3/psppayments/agreements', undefined, { 'User-Token': userToken })).body[0].errorCode).toBe('123');
  });
});

describe('the graph', () => {
  test('initiatePspPayment runs the same rules, with typed userErrors; the payment shows summary and log', async () => {
    const input = initBody();
    const mutation = `mutation($input: InitiatePspPaymentInput!) { initiatePspPayment(input: $input) {
      pspPayment { id pspTransactionId state redirectUrl summary { remainingAmountToCapture } log { operation } }
      userErrors { code field message } } }`;
    const ok = await psp.graphql(mutation, { input }, psp.msnHeaders);
    expect(ok.body.data.initiatePspPayment).toMatchObject({
      pspPayment: { pspTransactionId: input.pspTransactionId, state: 'INITIATED', summary: { remainingAmountToCapture: 0 }, log: [] },
      userErrors: [],
    });
    const again = await psp.graphql(mutation, { input: { ...input, merchantOrderId: 'other-order' } }, psp.msnHeaders);
    expect(again.body.data.initiatePspPayment.userErrors).toEqual([
      { code: 'PSP_TRANSACTION_EXISTS', field: 'pspTransactionId', message: expect.any(String) },
    ]);
    const bad = await psp.graphql(mutation, { input: { ...initBody(), currency: 'SEK' } }, psp.msnHeaders);
    expect(bad.body.data.initiatePspPayment.userErrors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'currency' });
    const node = await psp.graphql(
      'query($id: ID!) { node(id: $id) { id } }',
      { id: ok.body.data.initiatePspPayment.pspPayment.id },
      psp.msnHeaders,
    );
    // A PSP uses only its own root fields; node (which reaches merchants' objects) is refused before any resolver.
    expect(node.status).toBe(403);
    // The test clock stands still, so payments made at one instant are ordered by id: page through all of them.
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const list: any = await psp.graphql(
        'query($after: String) { pspPayments(first: 5, after: $after) { edges { node { pspTransactionId } } pageInfo { hasNextPage endCursor } } }',
        { after },
        psp.msnHeaders,
      );
      const page = list.body.data.pspPayments;
      seen.push(...page.edges.map((e: any) => e.node.pspTransactionId));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toContain(input.pspTransactionId);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test('a merchant sees no PSP payments and cannot initiate one', async () => {
    const merchant = new MerchantClient(t.baseUrl);
    const res = await merchant.graphql('{ pspPayment(pspTransactionId: "abc") { state } }');
    expect(res.body.data.pspPayment).toBeNull();
    const mutation = await merchant.graphql(
      'mutation($input: InitiatePspPaymentInput!) { initiatePspPayment(input: $input) { userErrors { code } } }',
      { input: initBody() },
    );
    expect(mutation.body.errors[0].extensions.code).toBe('FORBIDDEN_PRINCIPAL');
  });
});

describe('the subscription', () => {
  test('pspPaymentChanges relays the PSP’s committed changes of its sales unit, optionally of one payment', async () => {
    const { 'Content-Type': _type, ...params } = await psp.headers(psp.msnHeaders);
    const watched = initBody();
    const all = new Subscriber(t.baseUrl, params).subscribe(
      'subscription { pspPaymentChanges { eventName pspPayment { pspTransactionId state } } }',
    );
    const one = new Subscriber(t.baseUrl, params).subscribe(
      'subscription($id: String) { pspPaymentChanges(pspTransactionId: $id) { eventName pspPayment { state } } }',
      { id: watched.pspTransactionId },
    );
    try {
      await eventually(() => t.app.services.events.subscriberCount >= 2, 'the subscriptions');
      const other = await initiate();
      const res = await call('POST', '/psp/v3/psppayments/init', watched);
      const token = new URL(res.body.vippsRedirectUrl).searchParams.get('token')!;
      await approve(watched.pspTransactionId, token);
      await eventually(() => one.results.some((r) => r.data.pspPaymentChanges.eventName === 'psp.payment.reserved.v1'), 'RESERVED');
      expect(one.results.map((r) => r.data.pspPaymentChanges.eventName)).toEqual([
        'psp.payment.initiated.v1',
        'psp.payment.accepted.v1',
        'psp.payment.reserved.v1',
      ]);
      expect(all.results.map((r) => r.data.pspPaymentChanges.pspPayment.pspTransactionId)).toContain(other.body.pspTransactionId);
    } finally {
      await Promise.all([all.close(), one.close()]);
    }
  });
});
