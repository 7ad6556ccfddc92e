import { randomUUID } from 'node:crypto';
import { addBusinessDays, osloDate } from '../../src/ledgers/business-days.js';
import { captureFee, DEFAULT_PRICE } from '../../src/ledgers/ledger.rules.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { recordEvent } from '../../src/platform/events/record-event.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { countingBusWakes } from '../support/bus-wakes.js';

/*
 * issue 23, part 4: capture, refund and cancel write by SQL, not a flush (the write runner, run-operation.ts): the
 * payment's update, the event in the outbox, the settlement ledger's row and the key's record in one statement. What
 * the flush wrote must still be written, the same on both faces, and read back from the database itself.
 */
let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp({ runJobs: false });
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const MINUTE = 60_000;
/** Test sales unit 123456's price (ledger.seed.ts), the terms the gate statement reads. */
const PRICE_123456 = { feeBasisPoints: 175, feeFixed: 100 };

type Verb = 'capture' | 'refund' | 'cancel';
type Face = 'REST' | 'GraphQL';

const MUTATION: Record<Verb, string> = {
  capture: `mutation($input: CapturePaymentInput!) { result: capturePayment(input: $input) { payment { state aggregate {
    capturedAmount { value } refundedAmount { value } cancelledAmount { value } } } userErrors { code message } } }`,
  refund: `mutation($input: RefundPaymentInput!) { result: refundPayment(input: $input) { payment { state aggregate {
    capturedAmount { value } refundedAmount { value } cancelledAmount { value } } } userErrors { code message } } }`,
  cancel: `mutation($input: CancelPaymentInput!) { result: cancelPayment(input: $input) { payment { state aggregate {
    capturedAmount { value } refundedAmount { value } cancelledAmount { value } } } userErrors { code message } } }`,
};

/** The verb through one face; the answer as { ok, aggregate, state } or { ok: false, error } for either face. */
async function run(face: Face, verb: Verb, reference: string, value: number | undefined, key = randomUUID()) {
  if (face === 'REST') {
    const res = await merchant.modify(reference, verb, value, key);
    if (res.status === 200) return { ok: true, state: res.body.state, aggregate: aggregateOf(res.body.aggregate), raw: res.body };
    // A refusal's trace id is the request's own; the rest of it is what the key replays.
    const { traceId: _traceId, ...raw } = res.body;
    return { ok: false, status: res.status, error: res.body.title as string, raw };
  }
  const input = { idempotencyKey: key, reference, ...(value === undefined ? {} : { amount: { value, currency: 'NOK' } }) };
  const res = await merchant.graphql(MUTATION[verb], { input });
  expect(res.body.errors).toBeUndefined();
  const { payment, userErrors } = res.body.data.result;
  if (userErrors.length === 0) return { ok: true, state: payment.state, aggregate: aggregateOf(payment.aggregate), raw: res.body };
  return { ok: false, error: userErrors[0].code as string, raw: res.body };
}

function aggregateOf(aggregate: Record<string, { value: number }>) {
  return {
    captured: aggregate.capturedAmount!.value,
    refunded: aggregate.refundedAmount!.value,
    cancelled: aggregate.cancelledAmount!.value,
  };
}

async function rows<T>(sql: string, params: unknown[]): Promise<T[]> {
  return forkEm(t.app.services.orm).execute<T[]>(sql, params);
}

/** The payment's row, its outbox events and its ledger rows, as the database holds them. */
async function stored(reference: string) {
  const [payment] = await rows<Record<string, unknown>>(
    `select id, state, captured_amount, refunded_amount, cancelled_amount, updated_at from payment where msn = '123456' and reference = ?`,
    [reference],
  );
  const events = await rows<{ name: string; payload: unknown; stream_id: string }>(
    `select name, payload, stream_id from domain_event where stream_type = 'payment' and stream_id = ? order by id`,
    [payment!.id],
  );
  const ledger = await rows<{
    transaction_type: string;
    gross_amount: unknown;
    fee: unknown;
    ledger_amount: unknown;
    ledger_date: unknown;
  }>(
    `select transaction_type, gross_amount, fee, ledger_amount, ledger_date::text as ledger_date from ledger_transaction where payment_id = ? order by id`,
    [payment!.id],
  );
  return {
    state: payment!.state,
    amounts: [Number(payment!.captured_amount), Number(payment!.refunded_amount), Number(payment!.cancelled_amount)],
    updatedAt: new Date(payment!.updated_at as string | Date).getTime(),
    events: events.map((e) => {
      const payload = (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload) as { amount: { value: number } };
      return [e.name.replace(/^epayments\.payment\.|\.v1$/g, ''), Number(payload.amount.value)];
    }),
    ledger: ledger.map((r) => [r.transaction_type, Number(r.gross_amount), Number(r.fee), Number(r.ledger_amount), r.ledger_date]),
  };
}

describe.each<Face>(['REST', 'GraphQL'])('modifications write what the flush wrote, through %s', (face) => {
  test('a capture: the payment, its CAPTURED event and a capture row with the sales unit fee, in one commit', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    t.clock.advance(MINUTE);
    const captured = await run(face, 'capture', reference, 6_001);
    expect(captured).toMatchObject({ ok: true, state: 'AUTHORIZED', aggregate: { captured: 6_001, refunded: 0, cancelled: 0 } });
    const fee = captureFee(6_001, PRICE_123456);
    // 6001 * 1.75 % = 105.0175, rounded half up to 105, + 100.
    expect(fee).toBe(205);
    const after = await stored(reference);
    expect(after.state).toBe('AUTHORIZED');
    expect(after.amounts).toEqual([6_001, 0, 0]);
    expect(after.updatedAt).toBe(t.clock.now().getTime());
    expect(after.events).toEqual([
      ['created', 10_000],
      ['authorized', 10_000],
      ['captured', 6_001],
    ]);
    expect(after.ledger).toEqual([['capture', 6_001, fee, 6_001 - fee, osloDate(t.clock.now())]]);
  });

  test('a refund: a negative refund row without fee, two business days later; a cancel releases the rest, no row', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    expect((await run(face, 'capture', reference, 4_000)).ok).toBe(true);
    const refunded = await run(face, 'refund', reference, 1_500);
    expect(refunded).toMatchObject({ ok: true, aggregate: { captured: 4_000, refunded: 1_500, cancelled: 0 } });
    const cancelled = await run(face, 'cancel', reference, undefined);
    expect(cancelled).toMatchObject({ ok: true, state: 'AUTHORIZED', aggregate: { captured: 4_000, refunded: 1_500, cancelled: 6_000 } });
    const after = await stored(reference);
    expect(after.amounts).toEqual([4_000, 1_500, 6_000]);
    expect(after.events.slice(2)).toEqual([
      ['captured', 4_000],
      ['refunded', 1_500],
      ['cancelled', 6_000],
    ]);
    expect(after.ledger).toEqual([
      ['capture', 4_000, captureFee(4_000, PRICE_123456), 4_000 - captureFee(4_000, PRICE_123456), osloDate(t.clock.now())],
      ['refund', -1_500, 0, -1_500, addBusinessDays(osloDate(t.clock.now()), 2)],
    ]);
  });

  test('a cancel before authorization terminates the payment, with its event and no ledger row', async () => {
    const reference = newReference();
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    const cancelled = await run(face, 'cancel', reference, undefined);
    expect(cancelled).toMatchObject({ ok: true, state: 'TERMINATED', aggregate: { cancelled: 10_000 } });
    const after = await stored(reference);
    expect(after.state).toBe('TERMINATED');
    expect(after.events).toEqual([
      ['created', 10_000],
      ['terminated', 10_000],
    ]);
    expect(after.ledger).toEqual([]);
  });

  test('a retry with the key replays the first answer and writes nothing; another request with it is refused', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const key = randomUUID();
    const first = await run(face, 'capture', reference, 1_000, key);
    expect(first.ok).toBe(true);
    const again = await run(face, 'capture', reference, 1_000, key);
    expect(again.raw).toEqual(first.raw);
    const other = await run(face, 'capture', reference, 2_000, key);
    expect(other).toMatchObject({ ok: false, error: face === 'REST' ? 'Capture idempotency conflict' : 'IDEMPOTENCY_CONFLICT' });
    const after = await stored(reference);
    expect(after.amounts).toEqual([1_000, 0, 0]);
    expect(after.events.filter(([name]) => name === 'captured')).toHaveLength(1);
    expect(after.ledger).toHaveLength(1);
  });

  test('a refusal is recorded under the key: its retry is refused again after the payment changed, and nothing was written', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const key = randomUUID();
    const refused = await run(face, 'refund', reference, 500, key);
    expect(refused).toMatchObject({ ok: false });
    // Now 500 could be refunded; the key still answers as it did.
    expect((await run(face, 'capture', reference, 1_000)).ok).toBe(true);
    expect((await run(face, 'refund', reference, 500, key)).raw).toEqual(refused.raw);
    const after = await stored(reference);
    expect(after.amounts).toEqual([1_000, 0, 0]);
    expect(after.events.map(([name]) => name)).toEqual(['created', 'authorized', 'captured']);
    expect(after.ledger.map(([type]) => type)).toEqual(['capture']);
  });

  test('an overdue payment is expired with the refusal: the EXPIRED event commits, no ledger row, the retry replays', async () => {
    const reference = newReference();
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    t.clock.advance(10 * MINUTE);
    const key = randomUUID();
    const refused = await run(face, 'capture', reference, 1_000, key);
    expect(refused).toMatchObject({ ok: false, error: face === 'REST' ? 'Payment cannot be captured: invalid state' : expect.any(String) });
    const after = await stored(reference);
    expect(after.state).toBe('EXPIRED');
    expect(after.updatedAt).toBe(t.clock.now().getTime());
    expect(after.events).toEqual([
      ['created', 10_000],
      ['expired', 10_000],
    ]);
    expect(after.ledger).toEqual([]);
    expect((await run(face, 'capture', reference, 1_000, key)).raw).toEqual(refused.raw);
    expect((await stored(reference)).events).toHaveLength(2);
  });

  test('a payment of another sales unit is not found, and nothing is recorded under the key', async () => {
    const key = randomUUID();
    const missing = await run(face, 'capture', 'no-such-payment', 100, key);
    expect(missing.ok).toBe(false);
    if (face === 'REST') expect(missing.status).toBe(404);
    const records = await rows(`select 1 from idempotency_record where idempotency_key = ?`, [key]);
    expect(records).toEqual([]);
  });
});

test("a sales unit's first capture at runtime makes its ledger place, at the default price, in the same commit", async () => {
  const em = forkEm(t.app.services.orm);
  await em.execute(
    `insert into sales_unit (msn, merchant_id, name, long_living_payments_allowed, created_at)
     select '123458', merchant_id, 'Third shop', false, now() from sales_unit where msn = '123456'`,
  );
  const third = new MerchantClient(t.baseUrl, { ...merchant.merchant, msn: '123458' });
  const reference = await third.authorizedPayment(10_000);
  expect((await third.modify(reference, 'capture', 10_000)).status).toBe(200);
  const [row] = await rows<{ fee: unknown; recipient_handle: string }>(
    `select lt.fee, lt.recipient_handle from ledger_transaction lt join payment p on p.id = lt.payment_id where p.reference = ?`,
    [reference],
  );
  expect(row).toEqual({ fee: expect.anything(), recipient_handle: 'api:123458' });
  expect(Number(row!.fee)).toBe(captureFee(10_000, DEFAULT_PRICE));
});

test("a projected event is written only with its projector's rows: recording it in a unit of work is refused, and writes nothing", async () => {
  const reference = await merchant.authorizedPayment(10_000);
  expect((await merchant.modify(reference, 'capture', 3_333)).status).toBe(200);
  const [payment] = await rows<{ id: string }>(`select id from payment where msn = '123456' and reference = ?`, [reference]);
  const recorded = forkEm(t.app.services.orm).transactional(async (em) => {
    recordEvent(em, {
      streamType: 'payment',
      streamId: payment!.id,
      msn: '123456',
      name: 'epayments.payment.captured.v1',
      payload: { reference, amount: { currency: 'NOK', value: 3_333 }, success: true },
      occurredAt: t.clock.now(),
    });
  });
  await expect(recorded).rejects.toThrow(/only the write runner writes it/);
  const { ledger, events } = await stored(reference);
  expect(ledger).toHaveLength(1);
  expect(events.filter(([name]) => name === 'captured')).toHaveLength(1);
});

// The expiry job is off here, so only the request can expire the payment and wake the bus.
test("an overdue payment's expiry, committed with the refusal, wakes the bus once; its replay wakes nothing", async () => {
  const reference = newReference();
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  t.clock.advance(10 * MINUTE);
  await countingBusWakes(t.app.services.events, async (wakes) => {
    expect((await merchant.modify(reference, 'capture', 100, 'wake-expiry')).status).toBe(400);
    expect(wakes()).toBe(1);
    expect((await merchant.modify(reference, 'capture', 100, 'wake-expiry')).status).toBe(400);
    expect(wakes()).toBe(1);
  });
});
