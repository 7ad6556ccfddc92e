import { randomUUID } from 'node:crypto';
import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * `minimumUserAge` (FACTS §14.3, §14.4): a user younger than it may not approve; the merchant hears 7010, the user is
 * told why. Nora Nordmann (4795550315), born 2015-03-01, is the test environment's child; her age is counted on the
 * sales unit's test clock.
 */

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const NORA = '4795550315';
const KARI = '4791234567';
const DAY = 86_400_000;

/** Whole years of someone born on `birth` (YYYY-MM-DD) at `now`, UTC. */
function ageAt(birth: string, now: Date): number {
  const [y, m, d] = birth.split('-').map(Number) as [number, number, number];
  const before = now.getUTCMonth() + 1 < m || (now.getUTCMonth() + 1 === m && now.getUTCDate() < d);
  return now.getUTCFullYear() - y - (before ? 1 : 0);
}

async function created(client: MerchantClient, minimumUserAge: unknown): Promise<{ reference: string; token: string }> {
  const reference = newReference('age');
  const res = await client.createPayment({ reference, minimumUserAge });
  expect(res.status).toBe(201);
  return { reference, token: new URL(res.body.redirectUrl as string).searchParams.get('token')! };
}

async function unitNow(client: MerchantClient): Promise<Date> {
  const res = await client.graphql('{ testClock { now } }');
  return new Date(res.body.data.testClock.now as string);
}

describe('the create', () => {
  test.each([[-1], [101], [17.5], ['eighteen']])(
    'minimumUserAge %p is a field error naming minimumUserAge, without a code',
    async (value) => {
      const res = await merchant.createPayment({ minimumUserAge: value });
      expect(res.status).toBe(400);
      expect(res.body.extraDetails).toEqual([expect.objectContaining({ name: 'minimumUserAge' })]);
    },
  );

  test.each([[null], [0], [100]])('minimumUserAge %p is accepted (WooCommerce sends null)', async (value) => {
    expect((await merchant.createPayment({ minimumUserAge: value })).status).toBe(201);
  });
});

describe('approval', () => {
  test('force approve by a user under minimumUserAge is 7010 "Customer not found"; the payment stays CREATED; an adult approves', async () => {
    const { reference } = await created(merchant, 18);
    const refused = await merchant.forceApprove(reference, { customer: { phoneNumber: NORA } });
    expect(refused.status).toBe(400);
    expect(refused.body.title).toBe('Customer not found');
    expect(refused.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '7010' });
    // The merchant is not told the user's number is wrong: the detail names the age rule.
    expect(refused.body.extraDetails).toContainEqual({ name: 'customer', reason: expect.stringContaining('minimumUserAge') });
    expect((await merchant.getPayment(reference)).body.state).toBe('CREATED');
    expect((await merchant.events(reference)).body.map((e: { name: string }) => e.name)).toEqual(['CREATED']);
    expect((await merchant.forceApprove(reference, { customer: { phoneNumber: KARI } })).status).toBe(200);
  });

  test('the landing page tells the child why, and she may give up', async () => {
    const { reference, token } = await created(merchant, 18);
    const post = (action: string, form: Record<string, string>) =>
      fetch(`${t.baseUrl}/wallet/landing/${action}?token=${encodeURIComponent(token)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const res = await post('approve', { phoneNumber: NORA });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('You must be at least 18 years old to pay for this.');
    expect(page).not.toMatch(/no test user has that phone number/i);
    expect((await post('reject', {})).status).toBe(200);
    expect((await merchant.getPayment(reference)).body.state).toBe('ABORTED');
  });

  test('the graph: minimumUserAge on createPayment, CUSTOMER_NOT_FOUND (7010) on approveTestPayment', async () => {
    const reference = newReference('age-gql');
    const create = await merchant.graphql(
      `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { payment { reference } userErrors { code } } }`,
      {
        input: {
          idempotencyKey: randomUUID(),
          reference,
          amount: { currency: 'NOK', value: 10_000 },
          paymentMethod: 'WALLET',
          userFlow: 'WEB_REDIRECT',
          returnUrl: 'https://merchant.example/return',
          minimumUserAge: 15,
        },
      },
    );
    expect(create.body.data.createPayment.userErrors).toEqual([]);
    const approve = await merchant.graphql(
      `mutation($input: ApproveTestPaymentInput!) { approveTestPayment(input: $input) { payment { state } userErrors { code errorCode field } } }`,
      { input: { reference, customer: { phoneNumber: NORA } } },
    );
    expect(approve.body.data.approveTestPayment).toEqual({
      payment: null,
      userErrors: [{ code: 'CUSTOMER_NOT_FOUND', errorCode: '7010', field: 'customer' }],
    });
  });

  test("her age is counted on the sales unit's test clock: past her birthday there, she is a year older", async () => {
    const unitB = new MerchantClient(t.baseUrl, MERCHANT_B);
    const now = await unitNow(unitB);
    const age = ageAt('2015-03-01', now);
    // Old enough for her age now, not for the next.
    const { reference: young } = await created(unitB, age + 1);
    expect((await unitB.forceApprove(young, { customer: { phoneNumber: NORA } })).body.extraDetails).toContainEqual({
      name: 'ErrorCode',
      reason: '7010',
    });
    expect((await unitB.forceApprove((await created(unitB, age)).reference, { customer: { phoneNumber: NORA } })).status).toBe(200);

    // Unit B's clock moves to the day after her next birthday; unit A's and the service's stay.
    let birthday = new Date(Date.UTC(now.getUTCFullYear(), 2, 1));
    if (birthday.getTime() <= now.getTime()) birthday = new Date(Date.UTC(now.getUTCFullYear() + 1, 2, 1));
    const seconds = Math.ceil((birthday.getTime() + DAY - now.getTime()) / 1000);
    const advanced = await unitB.graphql(
      `mutation($input: AdvanceTestClockInput!) { advanceTestClock(input: $input) { testClock { now } userErrors { code } } }`,
      { input: { seconds } },
    );
    expect(advanced.body.data.advanceTestClock.userErrors).toEqual([]);
    expect(ageAt('2015-03-01', await unitNow(unitB))).toBe(age + 1);
    expect((await unitB.forceApprove((await created(unitB, age + 1)).reference, { customer: { phoneNumber: NORA } })).status).toBe(200);
    // On unit A's clock she is as young as before.
    const { reference: onA } = await created(merchant, age + 1);
    expect((await merchant.forceApprove(onA, { customer: { phoneNumber: NORA } })).status).toBe(400);
  });
});
