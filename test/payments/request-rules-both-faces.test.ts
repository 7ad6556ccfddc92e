import { randomUUID } from 'node:crypto';
import { useTestApp } from '../support/app-fixture.js';
import { newReference } from '../support/merchant-client.js';

/**
 * The request rules live once (payment.rules.ts, payment.schemas.ts) and both faces call them: a rule refused on
 * REST as a 400 naming a field is refused on the graph as a VALIDATION_FAILED userError naming the same field.
 */

const t = useTestApp();

const USER_ERRORS = 'userErrors { code field message }';
const MUTATIONS = {
  capture: `mutation($input: CapturePaymentInput!) { capturePayment(input: $input) { payment { reference } ${USER_ERRORS} } }`,
  refund: `mutation($input: RefundPaymentInput!) { refundPayment(input: $input) { payment { reference } ${USER_ERRORS} } }`,
  cancel: `mutation($input: CancelPaymentInput!) { cancelPayment(input: $input) { payment { reference } ${USER_ERRORS} } }`,
  approve: `mutation($input: ApproveTestPaymentInput!) { approveTestPayment(input: $input) { payment { reference } ${USER_ERRORS} } }`,
  create: `mutation($input: CreatePaymentInput!) { createPayment(input: $input) { payment { reference } ${USER_ERRORS} } }`,
};

async function graphPayload(mutation: keyof typeof MUTATIONS, input: Record<string, unknown>): Promise<any> {
  const res = await t.merchant.graphql(MUTATIONS[mutation], { input });
  expect(res.body.errors).toBeUndefined();
  return Object.values(res.body.data as Record<string, unknown>)[0];
}

describe('a malformed reference is a bad request on both faces, never an unknown payment', () => {
  const malformed = 'order_1234';
  const amount = { currency: 'NOK', value: 1_000 };

  test.each(['capture', 'refund', 'cancel'] as const)('REST %s answers 400 naming reference', async (operation) => {
    const res = await t.merchant.modify(malformed, operation, operation === 'cancel' ? undefined : 1_000);
    expect(res.status).toBe(400);
    expect(res.body.extraDetails).toEqual([{ name: 'reference', reason: 'Must be 8 to 50 letters, digits or "-"' }]);
  });

  test.each([
    ['capture', { idempotencyKey: randomUUID(), reference: malformed, amount }],
    ['refund', { idempotencyKey: randomUUID(), reference: malformed, amount }],
    ['cancel', { idempotencyKey: randomUUID(), reference: malformed }],
    ['approve', { reference: malformed, customer: { phoneNumber: '4791234567' } }],
  ] as const)('the graph %s answers VALIDATION_FAILED naming reference', async (mutation, input) => {
    const payload = await graphPayload(mutation, input);
    expect(payload).toEqual({
      payment: null,
      userErrors: [
        { code: 'VALIDATION_FAILED', field: 'reference', message: expect.stringContaining('Must be 8 to 50 letters, digits or "-"') },
      ],
    });
  });

  test('a well-formed reference nobody has is still PAYMENT_NOT_FOUND on the graph', async () => {
    const payload = await graphPayload('cancel', { idempotencyKey: randomUUID(), reference: newReference() });
    expect(payload.userErrors).toEqual([expect.objectContaining({ code: 'PAYMENT_NOT_FOUND', field: 'reference' })]);
  });
});

describe('create: the graph checks its input with the same declarations and rules as the REST body', () => {
  const input = (overrides: Record<string, unknown>) => ({
    idempotencyKey: randomUUID(),
    reference: newReference('faces'),
    amount: { currency: 'NOK', value: 10_000 },
    paymentMethod: 'WALLET',
    userFlow: 'WEB_REDIRECT',
    returnUrl: 'https://merchant.example/return',
    ...overrides,
  });

  test.each([
    ['reference pattern', { reference: 'order_1234' }, 'reference'],
    ['amount above the maximum', { amount: { currency: 'NOK', value: 65_000_001 } }, 'amount.value'],
    ['returnUrl with http://', { returnUrl: 'http://merchant.example/return' }, 'returnUrl'],
    ['PUSH_MESSAGE without a phone number', { userFlow: 'PUSH_MESSAGE', returnUrl: null }, 'customer.phoneNumber'],
    ['an unknown profile scope', { profileScope: 'name shoeSize' }, 'profile.scope'],
  ])('%s', async (_, overrides, field) => {
    const payload = await graphPayload('create', input(overrides));
    expect(payload.payment).toBeNull();
    expect(payload.userErrors).toEqual([expect.objectContaining({ code: 'VALIDATION_FAILED', field })]);
  });

  // The graph's DateTime takes RFC 3339 date-times only (storable-time.ts): a date alone is refused as the variable
  // is read, naming its path, before any rule runs; REST's body names the same field.
  test('expiresAt that is not RFC 3339', async () => {
    const res = await t.merchant.graphql(MUTATIONS.create, { input: input({ userFlow: 'QR', returnUrl: null, expiresAt: '2030-01-01' }) });
    expect(res.body.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' }, message: expect.stringContaining('at "input.expiresAt"') }),
    ]);
  });

  test('an idempotency key longer than 50 characters', async () => {
    const payload = await graphPayload('create', input({ idempotencyKey: 'k'.repeat(51) }));
    expect(payload.userErrors).toEqual([expect.objectContaining({ code: 'VALIDATION_FAILED', field: 'idempotencyKey' })]);
  });

  test('a refusal with its public code: the smallest NOK amount', async () => {
    const payload = await graphPayload('create', input({ amount: { currency: 'NOK', value: 99 } }));
    expect(payload.userErrors).toEqual([expect.objectContaining({ code: 'AMOUNT_TOO_SMALL', field: 'amount.value' })]);
  });
});
