import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
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

describe('create and read', () => {
  test('creates a payment in CREATED with its CREATED event and documented fields only', async () => {
    const reference = newReference();
    const created = await merchant.createPayment({ reference }, 'create-key-1');
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['redirectUrl', 'reference']);
    expect(created.body.redirectUrl).toMatch(new RegExp(`^${t.baseUrl}/wallet/landing\\?token=[\\w-]+$`));

    const payment = await merchant.getPayment(reference);
    expect(payment.status).toBe(200);
    expect(payment.body).toEqual({
      aggregate: { authorizedAmount: nok(0), cancelledAmount: nok(0), capturedAmount: nok(0), refundedAmount: nok(0) },
      amount: nok(10_000),
      state: 'CREATED',
      paymentMethod: { type: 'WALLET' },
      profile: {},
      pspReference: expect.stringMatching(/^\d{10}$/),
      reference,
      redirectUrl: created.body.redirectUrl,
    });
    const events = await merchant.events(reference);
    expect(events.body).toEqual([
      {
        reference,
        pspReference: expect.any(String),
        name: 'CREATED',
        amount: nok(10_000),
        timestamp: expect.any(String),
        idempotencyKey: 'create-key-1',
        success: true,
      },
    ]);
  });

  test('PUSH_MESSAGE has no redirectUrl; metadata is echoed', async () => {
    const reference = newReference();
    const created = await merchant.createPayment({
      reference,
      userFlow: 'PUSH_MESSAGE',
      customer: { phoneNumber: '4791234567' },
      returnUrl: undefined,
      metadata: { order: '42' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ reference });
    expect((await merchant.getPayment(reference)).body.metadata).toEqual({ order: '42' });
  });

  test('a second payment with an existing reference is a 409', async () => {
    const reference = newReference();
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    const again = await merchant.createPayment({ reference });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(again.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '4150' });
  });
});

describe('capture, refund, cancel', () => {
  test('partial and repeated captures and refunds move only the aggregate', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    expect((await merchant.modify(reference, 'capture', 3_000)).body.aggregate.capturedAmount).toEqual(nok(3_000));
    const second = await merchant.modify(reference, 'capture', 7_000);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      amount: nok(10_000),
      state: 'AUTHORIZED',
      aggregate: { authorizedAmount: nok(10_000), cancelledAmount: nok(0), capturedAmount: nok(10_000), refundedAmount: nok(0) },
      pspReference: expect.any(String),
      reference,
    });
    expect((await merchant.modify(reference, 'refund', 2_500)).body.aggregate.refundedAmount).toEqual(nok(2_500));
    expect((await merchant.modify(reference, 'refund', 2_500)).body.aggregate.refundedAmount).toEqual(nok(5_000));
    const events = (await merchant.events(reference)).body.map((e: any) => [e.name, e.amount.value]);
    expect(events).toEqual([
      ['CREATED', 10_000],
      ['AUTHORIZED', 10_000],
      ['CAPTURED', 3_000],
      ['CAPTURED', 7_000],
      ['REFUNDED', 2_500],
      ['REFUNDED', 2_500],
    ]);
  });

  test('over-capture and over-refund are refused with the documented titles', async () => {
    const reference = await merchant.authorizedPayment(5_000);
    const over = await merchant.modify(reference, 'capture', 5_001);
    expect(over.status).toBe(400);
    expect(over.body.title).toBe('Capture amount too high');
    expect(over.body.extraDetails).toEqual(
      expect.arrayContaining([{ name: 'ErrorCode', reason: '6090' }, expect.objectContaining({ name: 'modificationAmount.value' })]),
    );
    await merchant.modify(reference, 'capture', 2_000);
    const overRefund = await merchant.modify(reference, 'refund', 2_001);
    expect(overRefund.status).toBe(400);
    expect(overRefund.body.title).toBe('Not enough refundable');
  });

  test('capture and refund before authorization are refused', async () => {
    const reference = newReference();
    await merchant.createPayment({ reference });
    expect((await merchant.modify(reference, 'capture', 100)).body.title).toBe('Cannot capture before reservation');
    expect((await merchant.modify(reference, 'refund', 100)).body.title).toBe('Attempted refund before reservation');
  });

  test('cancel before authorization terminates the payment', async () => {
    const reference = newReference();
    await merchant.createPayment({ reference }, 'k-create');
    const cancelled = await merchant.modify(reference, 'cancel', undefined, 'k-cancel');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('TERMINATED');
    expect(cancelled.body.aggregate.cancelledAmount).toEqual(nok(10_000));
    const last = (await merchant.events(reference)).body.at(-1);
    expect(last).toMatchObject({ name: 'TERMINATED', amount: nok(10_000), idempotencyKey: 'k-cancel' });
    expect((await merchant.forceApprove(reference)).status).toBe(400);
  });

  test('cancel after partial capture releases the rest; the state stays AUTHORIZED', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    await merchant.modify(reference, 'capture', 4_000);
    const cancelled = await merchant.modify(reference, 'cancel');
    expect(cancelled.body.state).toBe('AUTHORIZED');
    expect(cancelled.body.aggregate).toMatchObject({ capturedAmount: nok(4_000), cancelledAmount: nok(6_000) });
    expect((await merchant.events(reference)).body.at(-1)).toMatchObject({ name: 'CANCELLED', amount: nok(6_000) });
    expect((await merchant.modify(reference, 'capture', 1)).body.title).toBe('Cannot capture a cancelled payment');
    expect((await merchant.modify(reference, 'refund', 4_000)).status).toBe(200);
  });

  test('cancel after full capture is refused', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    await merchant.modify(reference, 'capture', 10_000);
    const cancelled = await merchant.modify(reference, 'cancel');
    expect(cancelled.status).toBe(400);
    expect(cancelled.body.title).toBe('Cannot cancel a captured payment');
  });

  test('a capture in another currency is refused, naming the field', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const wrong = await merchant.modify(reference, 'capture', 100, undefined, 'EUR');
    expect(wrong.status).toBe(400);
    expect(wrong.body.extraDetails[0].name).toBe('modificationAmount.currency');
  });
});

describe('idempotency', () => {
  test('same key and same request returns the first response and runs once', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const first = await merchant.modify(reference, 'capture', 1_000, 'cap-1');
    const second = await merchant.modify(reference, 'capture', 1_000, 'cap-1');
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const captures = (await merchant.events(reference)).body.filter((e: any) => e.name === 'CAPTURED');
    expect(captures).toHaveLength(1);
  });

  test('same key with another request is a 409', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    await merchant.modify(reference, 'capture', 1_000, 'cap-2');
    const conflict = await merchant.modify(reference, 'capture', 2_000, 'cap-2');
    expect(conflict.status).toBe(409);
    expect(conflict.body.extraDetails).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key' }));
  });

  test.each([
    ['capture', 'Capture idempotency conflict', '4010'],
    ['refund', 'Refund idempotency conflict', '4150'],
  ] as const)('%s: the same key with another amount is a 409 "%s" (%s)', async (operation, title, code) => {
    const reference = await merchant.authorizedPayment(10_000);
    await merchant.modify(reference, 'capture', 5_000);
    const key = `conflict-${operation}`;
    expect((await merchant.modify(reference, operation, 1_000, key)).status).toBe(200);
    const conflict = await merchant.modify(reference, operation, 2_000, key);
    expect(conflict.status).toBe(409);
    expect(conflict.body.title).toBe(title);
    expect(conflict.body.extraDetails).toEqual(
      expect.arrayContaining([{ name: 'ErrorCode', reason: code }, expect.objectContaining({ name: 'Idempotency-Key' })]),
    );
  });

  test('create: the same key for another request is a 409 "Idempotency-Key already exists" (4020)', async () => {
    const first = newReference();
    expect((await merchant.createPayment({ reference: first }, 'conflict-create')).status).toBe(201);
    const second = newReference();
    const conflict = await merchant.createPayment({ reference: second }, 'conflict-create');
    expect(conflict.status).toBe(409);
    expect(conflict.body.title).toBe('Idempotency error: Idempotency-Key already exists');
    expect(conflict.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '4020' });
    expect((await merchant.getPayment(second)).status).toBe(404);
  });

  // Issue 19 point 5: a modification's key is scoped to the payment it acts on, as the platform scopes it. The
  // WooCommerce plugin sends `Idempotency-Key: 1` on every cancel; before, every cancel after the first was a 409.
  test('cancel: one key on two payments is two requests; on the same payment it replays', async () => {
    const [first, second] = [newReference(), newReference()];
    for (const reference of [first, second]) expect((await merchant.createPayment({ reference })).status).toBe(201);
    const cancelled = await merchant.modify(first, 'cancel', undefined, '1');
    expect(cancelled.status).toBe(200);
    const other = await merchant.modify(second, 'cancel', undefined, '1');
    expect(other.status).toBe(200);
    expect((await merchant.getPayment(second)).body.state).toBe('TERMINATED');
    const again = await merchant.modify(first, 'cancel', undefined, '1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancelled.body);
    const terminated = (await merchant.events(first)).body.filter((e: any) => e.name === 'TERMINATED');
    expect(terminated).toHaveLength(1);
  });

  test('capture and refund: one key on two payments is two requests, on one payment with another amount still a 409', async () => {
    const [first, second] = [await merchant.authorizedPayment(10_000), await merchant.authorizedPayment(10_000)];
    expect((await merchant.modify(first, 'capture', 1_000, 'shared-capture')).status).toBe(200);
    expect((await merchant.modify(second, 'capture', 2_000, 'shared-capture')).status).toBe(200);
    expect((await merchant.getPayment(second)).body.aggregate.capturedAmount.value).toBe(2_000);
    expect((await merchant.modify(first, 'capture', 3_000, 'shared-capture')).status).toBe(409);
    expect((await merchant.modify(first, 'refund', 500, 'shared-refund')).status).toBe(200);
    expect((await merchant.modify(second, 'refund', 700, 'shared-refund')).status).toBe(200);
    expect((await merchant.modify(second, 'refund', 800, 'shared-refund')).status).toBe(409);
  });

  test('create replays its 201 for the same key and body', async () => {
    const body = { reference: newReference() };
    const first = await merchant.createPayment(body, 'create-replay');
    const again = await merchant.createPayment(body, 'create-replay');
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
  });

  test('a state-dependent refusal is replayed, not re-evaluated', async () => {
    const reference = await merchant.authorizedPayment(1_000);
    const refused = await merchant.modify(reference, 'capture', 5_000, 'too-much');
    expect(refused.status).toBe(400);
    const replay = await merchant.modify(reference, 'capture', 5_000, 'too-much');
    expect(replay.status).toBe(400);
    expect(replay.body.title).toBe('Capture amount too high');
  });

  test('a missing key is a 400 naming the header', async () => {
    const reference = await merchant.authorizedPayment(1_000);
    const res = await merchant.request('POST', `/epayment/v1/payments/${reference}/capture`, { modificationAmount: nok(100) });
    expect(res.status).toBe(400);
    expect(res.body.extraDetails).toContainEqual({ name: 'Idempotency-Key', reason: 'The header is required' });
  });
});

describe('tenancy', () => {
  test("another merchant's payment is a 404 on every route, exactly like a missing one", async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const other = new MerchantClient(t.baseUrl, MERCHANT_B);
    const missing = newReference();
    for (const ref of [reference, missing]) {
      const results = [
        await other.getPayment(ref),
        await other.events(ref),
        await other.modify(ref, 'capture', 100),
        await other.modify(ref, 'refund', 100),
        await other.modify(ref, 'cancel'),
        await other.forceApprove(ref),
      ];
      for (const res of results) {
        expect(res.status).toBe(404);
        expect(res.body.title).toBe('Reference not found');
      }
    }
    expect((await merchant.getPayment(reference)).body.aggregate.capturedAmount).toEqual(nok(0));
  });

  test("naming another merchant's MSN is a 403", async () => {
    const other = new MerchantClient(t.baseUrl, MERCHANT_B);
    const res = await other.request('GET', `/epayment/v1/payments/${newReference()}`, undefined, { 'Merchant-Serial-Number': '123456' });
    expect(res.status).toBe(403);
  });
});

describe('expiry', () => {
  test('a payment nobody acts on expires after 10 minutes without any call', async () => {
    const reference = newReference();
    await merchant.createPayment({ reference });
    t.clock.advance(9 * 60_000);
    await new Promise((r) => setTimeout(r, 150));
    expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');
    t.clock.advance(61_000);
    // Reads show EXPIRED from the due time on; the EXPIRED event shows the job has made it durable.
    expect((await merchant.getPayment(reference)).body.state).toBe('EXPIRED');
    const names = await waitFor(
      async () => (await merchant.events(reference)).body.map((e: any) => e.name),
      (n) => n.includes('EXPIRED'),
    );
    expect(names).toEqual(['CREATED', 'EXPIRED']);
    const approve = await merchant.forceApprove(reference);
    expect(approve.status).toBe(400);
  });
});

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = CONDITION_DEADLINE_MS): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}
