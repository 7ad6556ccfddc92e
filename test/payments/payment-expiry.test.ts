import { expireDuePayments } from '../../src/payments/payment-expiry.job.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Payments past their expiry that the expiry job has not swept yet. The job is off here, so only the requests
 * themselves can expire a payment, and the test decides when the job runs.
 */
let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
});
// The clock moves a long way in this file; a fresh client gets a token that has not expired on it.
beforeEach(() => {
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const MINUTE = 60_000;
const RECEIPT = {
  orderLines: [
    { name: 'Socks', id: 'line-1', totalAmount: 10_000, totalAmountExcludingTax: 8_000, totalTaxAmount: 2_000, taxPercentage: 25 },
  ],
  bottomLine: { currency: 'NOK' },
};

async function createdPayment(overrides: Record<string, unknown> = {}): Promise<string> {
  const reference = newReference('exp');
  const res = await merchant.createPayment({ reference, ...overrides });
  if (res.status !== 201) throw new Error(`create failed: ${res.text}`);
  return reference;
}

const eventNames = async (reference: string) => (await merchant.events(reference)).body.map((e: any) => e.name);

async function graphState(reference: string): Promise<string> {
  const res = await merchant.graphql('query($r: String!) { payment(reference: $r) { state } }', { r: reference });
  return res.body.data.payment.state;
}

describe('a payment past its expiry that the job has not swept', () => {
  test('reads show it EXPIRED, and the state filter of the graph agrees', async () => {
    const reference = await createdPayment();
    t.clock.advance(10 * MINUTE);
    expect((await merchant.getPayment(reference)).body.state).toBe('EXPIRED');
    expect(await graphState(reference)).toBe('EXPIRED');
    const byState = async (state: string) => {
      const res = await merchant.graphql(
        'query($s: [PaymentState!]) { payments(first: 100, filter: { state: $s }) { edges { node { reference } } } }',
        {
          s: [state],
        },
      );
      return res.body.data.payments.edges.map((e: any) => e.node.reference);
    };
    expect(await byState('EXPIRED')).toContain(reference);
    expect(await byState('CREATED')).not.toContain(reference);
    // Reads write nothing: the event arrives with the job or the next modification.
    expect(await eventNames(reference)).toEqual(['CREATED']);
  });

  test('cancel expires it inline and is refused as for an expired payment, not terminated', async () => {
    const reference = await createdPayment();
    t.clock.advance(10 * MINUTE);
    const cancel = await merchant.modify(reference, 'cancel', undefined, 'cancel-overdue');
    expect(cancel.status).toBe(400);
    expect(cancel.body.title).toBe('Cannot cancel a non-reserved payment');
    expect(cancel.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '6050' });
    expect(await eventNames(reference)).toEqual(['CREATED', 'EXPIRED']);
    // The expiry committed with the refusal; a retry with the key replays it and the job finds nothing to do.
    const retry = await merchant.modify(reference, 'cancel', undefined, 'cancel-overdue');
    expect(retry.status).toBe(400);
    expect(retry.body.title).toBe('Cannot cancel a non-reserved payment');
    await expireDuePayments(t.app.services);
    expect(await eventNames(reference)).toEqual(['CREATED', 'EXPIRED']);
  });

  test.each([
    ['capture', 'Payment cannot be captured: invalid state'],
    ['refund', 'Payment cannot be refunded: invalid state'],
  ] as const)('%s expires it inline and is refused for its state', async (operation, title) => {
    const reference = await createdPayment();
    t.clock.advance(10 * MINUTE + 1);
    const res = await merchant.modify(reference, operation, 100);
    expect(res.status).toBe(400);
    expect(res.body.title).toBe(title);
    expect(await eventNames(reference)).toEqual(['CREATED', 'EXPIRED']);
    expect((await merchant.getPayment(reference)).body.state).toBe('EXPIRED');
  });

  test('force approve expires it inline and fails', async () => {
    const reference = await createdPayment();
    t.clock.advance(11 * MINUTE);
    const res = await merchant.forceApprove(reference);
    expect(res.status).toBe(400);
    expect(res.body.title).toBe('Approve failed');
    expect(await eventNames(reference)).toEqual(['CREATED', 'EXPIRED']);
  });

  test('the landing page expires it inline and cannot approve it', async () => {
    const reference = newReference('exp');
    const created = await merchant.createPayment({ reference });
    const token = new URL(created.body.redirectUrl).searchParams.get('token')!;
    t.clock.advance(10 * MINUTE);
    const res = await fetch(`${t.baseUrl}/wallet/landing/approve?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ phoneNumber: '4791234567' }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('can no longer be approved');
    expect(await eventNames(reference)).toEqual(['CREATED', 'EXPIRED']);
  });

  test('a cancel one millisecond before expiry still terminates it', async () => {
    const reference = await createdPayment();
    t.clock.advance(10 * MINUTE - 1);
    const res = await merchant.modify(reference, 'cancel');
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('TERMINATED');
  });
});

describe('a long-living payment', () => {
  test('stays CREATED past 10 minutes and expires exactly at its expiresAt', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 30 * MINUTE);
    const reference = await createdPayment({
      userFlow: 'PUSH_MESSAGE',
      customer: { phoneNumber: '4791234567' },
      returnUrl: undefined,
      receipt: RECEIPT,
      expiresAt: expiresAt.toISOString(),
    });
    t.clock.advance(11 * MINUTE);
    await expireDuePayments(t.app.services);
    expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');
    expect(await graphState(reference)).toBe('CREATED');

    t.clock.advance(expiresAt.getTime() - t.clock.now().getTime() - 1);
    const early = await merchant.modify(reference, 'capture', 100);
    expect(early.body.title).toBe('Cannot capture before reservation');
    expect(await eventNames(reference)).toEqual(['CREATED']);

    t.clock.advance(1);
    expect((await merchant.getPayment(reference)).body.state).toBe('EXPIRED');
    const late = await merchant.modify(reference, 'capture', 100);
    expect(late.body.title).toBe('Payment cannot be captured: invalid state');
    expect(await eventNames(reference)).toEqual(['CREATED', 'EXPIRED']);
  });

  test('a QR payment with expiresAt is expired by the job exactly at expiresAt, once', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 20 * MINUTE);
    const reference = await createdPayment({ userFlow: 'QR', returnUrl: undefined, receipt: RECEIPT, expiresAt: expiresAt.toISOString() });
    t.clock.advance(expiresAt.getTime() - t.clock.now().getTime() - 1);
    await expireDuePayments(t.app.services);
    expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');
    t.clock.advance(1);
    await expireDuePayments(t.app.services);
    await expireDuePayments(t.app.services);
    expect(await eventNames(reference)).toEqual(['CREATED', 'EXPIRED']);
    expect((await merchant.getPayment(reference)).body.state).toBe('EXPIRED');
  });
});
