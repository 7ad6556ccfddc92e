import { randomUUID } from 'node:crypto';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { connectionParamsOf, eventually, Subscriber } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The test environment's failure triggers (FACTS §14.5), through every face: force approve (REST and the graph),
 * the landing page, the state read, the event subscription, and refunds on REST and the graph.
 */

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const KARI = '4791234567';
const TRIGGERS: [number, string][] = [
  [151, 'INSUFFICIENT_FUNDS'],
  [182, 'REFUSED_BY_ISSUER'],
  [183, 'SUSPECTED_FRAUD'],
  [184, 'WITHDRAWAL_LIMIT_EXCEEDED'],
  [186, 'EXPIRED_CARD'],
  [187, 'INVALID_CARD'],
  [197, 'THREE_D_SECURE_DENIED'],
  [201, 'UNKNOWN_RESULT'],
  [202, 'STRONG_CUSTOMER_AUTHENTICATION_REQUIRED'],
];

async function created(value: number): Promise<{ reference: string; token: string }> {
  const reference = newReference('trig');
  const res = await merchant.createPayment({ reference, amount: { currency: 'NOK', value } });
  expect(res.status).toBe(201);
  return { reference, token: new URL(res.body.redirectUrl as string).searchParams.get('token')! };
}

async function eventNames(reference: string): Promise<string[]> {
  return (await merchant.events(reference)).body.map((e: { name: string }) => e.name);
}

function landing(action: 'approve' | 'reject', token: string, form: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.baseUrl}/wallet/landing/${action}?token=${encodeURIComponent(token)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

describe('approval with a trigger amount', () => {
  test.each(TRIGGERS)('force approve of %i fails as %s (10010); the payment stays CREATED with no new event', async (value, reason) => {
    const { reference } = await created(value);
    const res = await merchant.forceApprove(reference);
    expect(res.status).toBe(400);
    expect(res.body.title).toBe('Approve failed');
    expect(res.body.extraDetails).toEqual([
      { name: 'failure', reason },
      { name: 'ErrorCode', reason: '10010' },
    ]);
    const read = (await merchant.getPayment(reference)).body;
    expect({ state: read.state, authorized: read.aggregate.authorizedAmount.value }).toEqual({ state: 'CREATED', authorized: 0 });
    expect(await eventNames(reference)).toEqual(['CREATED']);
  });

  test('the amounts next to the triggers approve as usual', async () => {
    for (const value of [150, 152, 185, 200, 203]) {
      const { reference } = await created(value);
      expect([value, (await merchant.forceApprove(reference)).status]).toEqual([value, 200]);
    }
  });

  test('on the landing page the user is told in words, may try again, and may give up (ABORTED)', async () => {
    const { reference, token } = await created(151);
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await landing('approve', token, { phoneNumber: KARI });
      expect(res.status).toBe(400);
      const page = await res.text();
      expect(page).toContain('there is not enough money on the account');
      // The choices stay: approve again, or reject.
      expect(page).toContain('/wallet/landing/reject');
    }
    expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');
    expect(await eventNames(reference)).toEqual(['CREATED']);
    expect((await landing('reject', token)).status).toBe(200);
    expect((await merchant.getPayment(reference)).body.state).toBe('ABORTED');
    expect(await eventNames(reference)).toEqual(['CREATED', 'ABORTED']);
  });

  test('a declined approval on the landing page records no consent: the payment shares nothing', async () => {
    const reference = newReference('trig');
    const res = await merchant.createPayment({ reference, amount: { currency: 'NOK', value: 186 }, profile: { scope: 'name' } });
    const token = new URL(res.body.redirectUrl as string).searchParams.get('token')!;
    const page = await (await landing('approve', token, { phoneNumber: KARI, consent: 'yes' })).text();
    expect(page).toContain('it has expired');
    expect(page).not.toContain('data-testid="shared-scopes"');
    const read = (await merchant.getPayment(reference)).body;
    expect(read.state).toBe('CREATED');
    expect(read.profile?.sub).toBeUndefined();
  });

  test('201: declined as an unknown result; the payment stays CREATED until its own expiry, not the hour', async () => {
    const { reference } = await created(201);
    expect((await merchant.forceApprove(reference)).body.extraDetails).toContainEqual({ name: 'failure', reason: 'UNKNOWN_RESULT' });
    t.clock.advance(9 * 60_000);
    expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');
    t.clock.advance(2 * 60_000);
    expect((await merchant.getPayment(reference)).body.state).toBe('EXPIRED');
    // The expiry job records it, as for any payment nobody approved.
    await eventually(async () => (await eventNames(reference)).join() === 'CREATED,EXPIRED', 'the EXPIRED event');
  });
});

describe('the graph', () => {
  const APPROVE = `mutation($input: ApproveTestPaymentInput!) {
    approveTestPayment(input: $input) { payment { reference state } userErrors { code errorCode field message } }
  }`;
  const REFUND = `mutation($input: RefundPaymentInput!) {
    refundPayment(input: $input) { payment { reference state aggregate { refundedAmount { value } } } userErrors { code errorCode field message } }
  }`;
  const STATE = `query($reference: String!) { payment(reference: $reference) { state aggregate { authorizedAmount { value } } } }`;

  test('approveTestPayment of a trigger amount is APPROVE_FAILED (10010) naming the failure; the state read says CREATED', async () => {
    const { reference } = await created(187);
    const res = await merchant.graphql(APPROVE, { input: { reference, customer: { phoneNumber: KARI } } });
    expect(res.body.data.approveTestPayment).toEqual({
      payment: null,
      userErrors: [{ code: 'APPROVE_FAILED', errorCode: '10010', field: 'failure', message: 'Approve failed: INVALID_CARD' }],
    });
    const state = await merchant.graphql(STATE, { reference });
    expect(state.body.data.payment).toEqual({ state: 'CREATED', aggregate: { authorizedAmount: { value: 0 } } });
  });

  test('the subscription carries no event for a declined approval: CREATED is followed by the user giving up', async () => {
    const { reference, token } = await created(183);
    expect((await merchant.forceApprove(reference)).status).toBe(400);
    expect((await landing('approve', token, { phoneNumber: KARI })).status).toBe(400);
    expect((await landing('reject', token)).status).toBe(200);
    const subscriber = new Subscriber(t.baseUrl, await connectionParamsOf(merchant)).subscribe(
      `subscription($reference: String, $after: ID) { paymentEvents(reference: $reference, after: $after) { event { name } payment { state } } }`,
      { reference, after: '0' },
    );
    try {
      const results = await subscriber.waitFor(2);
      expect(results.map((r) => r.data.paymentEvents.event.name)).toEqual(['CREATED', 'ABORTED']);
    } finally {
      await subscriber.close();
    }
  });

  test('refunds of 123 and 124 are REFUND_NOT_POSSIBLE (5100) and REFUND_PERIOD_EXPIRED (6220)', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    expect((await merchant.modify(reference, 'capture', 10_000)).status).toBe(200);
    for (const [value, code, errorCode] of [
      [123, 'REFUND_NOT_POSSIBLE', '5100'],
      [124, 'REFUND_PERIOD_EXPIRED', '6220'],
    ] as const) {
      const input = { reference, idempotencyKey: randomUUID(), amount: { currency: 'NOK', value } };
      const res = await merchant.graphql(REFUND, { input });
      expect(res.body.data.refundPayment).toEqual({
        payment: null,
        userErrors: [{ code, errorCode, field: 'amount.value', message: expect.any(String) }],
      });
    }
  });
});

describe('refunds with a trigger amount', () => {
  test('123 is "Refund not possible" (5100) and 124 "Refund period expired" (6220), each recorded under its key', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    expect((await merchant.modify(reference, 'capture', 10_000)).status).toBe(200);
    for (const [value, title, code] of [
      [123, 'Refund not possible', '5100'],
      [124, 'Refund period expired', '6220'],
    ] as const) {
      const key = randomUUID();
      const first = await merchant.modify(reference, 'refund', value, key);
      expect(first.status).toBe(400);
      expect(first.body.title).toBe(title);
      expect(first.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: code });
      expect(first.body.extraDetails).toContainEqual({ name: 'modificationAmount.value', reason: expect.stringContaining(String(value)) });
      // The refusal is the key's answer: the same key with another amount is a conflict, not a refund.
      const replay = await merchant.modify(reference, 'refund', value, key);
      expect({ status: replay.status, title: replay.body.title }).toEqual({ status: 400, title });
      const other = await merchant.modify(reference, 'refund', 125, key);
      expect(other.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '4150' });
    }
    const after = (await merchant.getPayment(reference)).body;
    expect(after.aggregate.refundedAmount.value).toBe(0);
    expect(await eventNames(reference)).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);
    expect((await merchant.modify(reference, 'refund', 125)).status).toBe(200);
  });

  test('a refund of 123 that the payment could not give anyway hears the ordinary rule first', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const res = await merchant.modify(reference, 'refund', 123);
    expect(res.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '6150' });
  });
});
