import pg from 'pg';
import { forkEm } from '../../src/platform/db/orm.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { onPostgres } from '../support/test-database.js';

// Row-lock races only exist on a PostgreSQL server; PGlite runs one transaction at a time.
const describeOnPostgres = onPostgres ? describe : describe.skip;

describeOnPostgres('concurrent modifications on PostgreSQL', () => {
  let t: TestApp;
  let merchant: MerchantClient;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = new MerchantClient(t.baseUrl);
  });
  afterAll(() => t.close());

  /**
   * Runs `request` while another transaction holds an uncommitted copy of `firstKey`'s record under `secondKey` (no
   * advisory lock), and commits it 300 ms in: the request's own record then fails on that row's unique constraint.
   */
  async function whileAnotherRecords<T>(operation: string, firstKey: string, secondKey: string, request: () => Promise<T>): Promise<T> {
    const other = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
    await other.connect();
    try {
      await other.query('begin');
      await other.query(
        `insert into idempotency_record (client_id, msn, operation, target, idempotency_key, request_digest, outcome, created_at)
         select client_id, msn, operation, target, $1, request_digest, outcome, now() from idempotency_record
         where idempotency_key = $2 and operation = $3`,
        [secondKey, firstKey, operation],
      );
      const pending = request();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other.query('commit');
      return await pending;
    } finally {
      await other.end();
    }
  }

  test('20 concurrent captures adding up to more than authorized never capture more than authorized', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => merchant.modify(reference, 'capture', 700)));
    const succeeded = results.filter((r) => r.status === 200).length;
    for (const r of results) expect([200, 400]).toContain(r.status);
    // 14 * 700 = 9800 fits, the 15th would not.
    expect(succeeded).toBe(14);
    const payment = await merchant.getPayment(reference);
    expect(payment.body.aggregate.capturedAmount.value).toBe(9_800);
    const captured = (await merchant.events(reference)).body.filter((e: any) => e.name === 'CAPTURED');
    expect(captured).toHaveLength(14);
  });

  test('concurrent captures, refunds and a cancel keep every invariant', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    await merchant.modify(reference, 'capture', 5_000);
    const calls = [
      ...Array.from({ length: 8 }, () => merchant.modify(reference, 'capture', 1_000)),
      ...Array.from({ length: 8 }, () => merchant.modify(reference, 'refund', 1_000)),
      merchant.modify(reference, 'cancel'),
    ];
    await Promise.all(calls);
    const { aggregate } = (await merchant.getPayment(reference)).body;
    expect(aggregate.capturedAmount.value + aggregate.cancelledAmount.value).toBeLessThanOrEqual(aggregate.authorizedAmount.value);
    expect(aggregate.refundedAmount.value).toBeLessThanOrEqual(aggregate.capturedAmount.value);
    const events = (await merchant.events(reference)).body as { name: string; amount: { value: number } }[];
    const sum = (name: string) => events.filter((e) => e.name === name).reduce((s, e) => s + e.amount.value, 0);
    expect(sum('CAPTURED')).toBe(aggregate.capturedAmount.value);
    expect(sum('REFUNDED')).toBe(aggregate.refundedAmount.value);
    expect(sum('CANCELLED')).toBe(aggregate.cancelledAmount.value);
  });

  test('10 concurrent identical requests with one idempotency key create one capture and one event', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const results = await Promise.all(Array.from({ length: 10 }, () => merchant.modify(reference, 'capture', 1_000, 'same-key')));
    // Each answer is the first response replayed, or "still in flight" while the first runs.
    for (const r of results) expect([200, 409]).toContain(r.status);
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of ok) expect(r.body.aggregate.capturedAmount.value).toBe(1_000);
    const captured = (await merchant.events(reference)).body.filter((e: any) => e.name === 'CAPTURED');
    expect(captured).toHaveLength(1);
    expect((await merchant.getPayment(reference)).body.aggregate.capturedAmount.value).toBe(1_000);
    // And once the first has finished, every retry gets its response.
    expect((await merchant.modify(reference, 'capture', 1_000, 'same-key')).status).toBe(200);
  });

  // issue 23: create is one statement, whose snapshot is taken before it takes the key's lock. A request with the key
  // that commits its record after that snapshot is found by the record's unique constraint, and its answer replayed.
  test('a create whose key is recorded by another transaction while it runs replays that answer', async () => {
    const reference = newReference();
    const first = await merchant.createPayment({ reference }, 'race-first');
    expect(first.status).toBe(201);
    // Another transaction holds an uncommitted record for the same request under a second key (no advisory lock); the
    // create's record insert waits on that row, then fails on it once it commits.
    const replayed = await whileAnotherRecords('payment.create', 'race-first', 'race-second', () =>
      merchant.createPayment({ reference }, 'race-second'),
    );
    expect(replayed.status).toBe(201);
    expect(replayed.body).toEqual(first.body);
    const events = await merchant.events(reference);
    expect(events.body.filter((e: { name: string }) => e.name === 'CREATED')).toHaveLength(1);
  });

  // issue 23: a modification's gate (lock and record lookup) is one statement, the lookup in a snapshot taken before
  // the lock; a record committed in between is found by its unique constraint, the capture rolled back and replayed.
  test('a capture whose key is recorded by another transaction while it runs captures once and replays that answer', async () => {
    const reference = await merchant.authorizedPayment(1_000);
    const first = await merchant.modify(reference, 'capture', 100, 'race-capture-first');
    expect(first.status).toBe(200);
    const replayed = await whileAnotherRecords('payment.capture', 'race-capture-first', 'race-capture-second', () =>
      merchant.modify(reference, 'capture', 100, 'race-capture-second'),
    );
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual(first.body);
    expect((await merchant.getPayment(reference)).body.aggregate.capturedAmount.value).toBe(100);
    const events = await merchant.events(reference);
    expect(events.body.filter((e: { name: string }) => e.name === 'CAPTURED')).toHaveLength(1);
  });

  // issue 23, part 4: refund and cancel share the capture's two statements (the gate with the locked payment, the writes
  // with the record); the refund's ledger row rolls back with the rest when the record's constraint refuses it.
  test('a refund and a cancel whose keys are recorded by another transaction while they run act once and replay', async () => {
    const reference = await merchant.authorizedPayment(1_000);
    expect((await merchant.modify(reference, 'capture', 600)).status).toBe(200);
    for (const [verb, value] of [
      ['refund', 200],
      ['cancel', undefined],
    ] as const) {
      const first = await merchant.modify(reference, verb, value, `race-${verb}-first`);
      expect(first.status).toBe(200);
      const replayed = await whileAnotherRecords(`payment.${verb}`, `race-${verb}-first`, `race-${verb}-second`, () =>
        merchant.modify(reference, verb, value, `race-${verb}-second`),
      );
      expect(replayed.status).toBe(200);
      expect(replayed.body).toEqual(first.body);
    }
    const { aggregate } = (await merchant.getPayment(reference)).body;
    expect([aggregate.capturedAmount.value, aggregate.refundedAmount.value, aggregate.cancelledAmount.value]).toEqual([600, 200, 400]);
    const names = (await merchant.events(reference)).body.map((e: { name: string }) => e.name);
    expect(names).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED', 'REFUNDED', 'CANCELLED']);
    const ledger = await forkEm(t.app.services.orm).execute<{ transaction_type: string; gross_amount: string }[]>(
      `select lt.transaction_type, lt.gross_amount from ledger_transaction lt join payment p on p.id = lt.payment_id
       where p.reference = ? order by lt.id`,
      [reference],
    );
    expect(ledger.map((row) => [row.transaction_type, Number(row.gross_amount)])).toEqual([
      ['capture', 600],
      ['refund', -200],
    ]);
  });

  test('concurrent captures and refunds write one ledger row per event that committed', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    await merchant.modify(reference, 'capture', 3_000);
    await Promise.all([
      ...Array.from({ length: 6 }, () => merchant.modify(reference, 'capture', 1_000)),
      ...Array.from({ length: 6 }, () => merchant.modify(reference, 'refund', 1_000)),
    ]);
    const events = (await merchant.events(reference)).body as { name: string; amount: { value: number } }[];
    const ledger = await forkEm(t.app.services.orm).execute<{ gross_amount: string }[]>(
      `select lt.gross_amount from ledger_transaction lt join payment p on p.id = lt.payment_id where p.reference = ?`,
      [reference],
    );
    const signed = events.flatMap((e) => (e.name === 'CAPTURED' ? [e.amount.value] : e.name === 'REFUNDED' ? [-e.amount.value] : []));
    expect(ledger.map((row) => Number(row.gross_amount)).sort((a, b) => a - b)).toEqual(signed.sort((a, b) => a - b));
  });

  test('10 concurrent creates with one key and one reference create one payment', async () => {
    const body = { reference: `conc-create-${Date.now()}` };
    const results = await Promise.all(Array.from({ length: 10 }, () => merchant.createPayment(body, 'create-once')));
    for (const r of results) expect([201, 409]).toContain(r.status);
    const events = await merchant.events(body.reference);
    expect(events.body.filter((e: any) => e.name === 'CREATED')).toHaveLength(1);
  });
});
