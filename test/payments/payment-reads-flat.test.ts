import { chunkStatements, setupStatements, soakReference, SOAK_WEBHOOKS, type FillPlan } from '../../bench/soak-fill.js';
import { readBuffers, type ReadBuffers } from '../../bench/read-buffers.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { gateAndRead } from '../../src/platform/db/run-operation.js';
import { NO_GATE } from '../../src/platform/idempotency/idempotency-gate.js';
import { keyRecordsKeptSince } from '../../src/platform/idempotency/idempotency-retention.js';
import { lockedPayment } from '../../src/payments/payment-for-verb.js';
import { sequenceAll } from '../../src/platform/events/event-sequencer.js';
import { MerchantClient } from '../support/merchant-client.js';
import { explainBuffers, flatVerdict, leastOfThree, type Reading } from '../support/plan-buffers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// issue 36: the soak's fill (bench/soak-fill.ts) writes rows the service reads as its own, and a payment's log, a page
// of payments and a search cost the same buffers (EXPLAIN) over 1,000 payments and over 4,000: the method of the
// outbox-read-cost and webhook-claim-cost tests, at the small scale CI can afford; `npm run soak` gives the same
// figures at millions (bench/README.md, Soak). No time is asserted.
let t: TestApp;
let plan: FillPlan;

beforeAll(async () => {
  t = await startTestApp();
  const now = t.clock.now().getTime();
  plan = { start: new Date(now - 2 * 60 * 60 * 1000), stepMs: 500, idempotencyFrom: new Date(now - 2 * 60 * 60 * 1000) };
  for (const sql of setupStatements(plan, 4_000, 'http://127.0.0.1:9/soak')) await db().execute(sql);
});
afterAll(() => t.close());

const db = () => forkEm(t.app.services.orm);

async function fill(from: number, to: number): Promise<void> {
  await db().transactional(async (em) => {
    for (const sql of chunkStatements(plan, from, to)) await em.execute(sql);
  });
}

/**
 * Each read's fewest buffers of three, read as the bus would find the outbox when nothing is fresh: the app's own bus
 * sequences beside the test, and a read racing it touches a few more (outbox-read-cost.test.ts); a read whose cost
 * grew with the tables costs more in all three.
 */
async function quietBuffers(): Promise<ReadBuffers> {
  await sequenceAll(db());
  await db().execute(`update event_sequencer set horizon = greatest(horizon, pg_current_xact_id())`);
  await db().execute('analyze');
  // The payment named is the oldest: its log sits as deep in the tables as any.
  const [{ id }] = await db().execute<{ id: string }[]>(`select id from payment where reference = ?`, [soakReference(1)]);
  const readings: ReadBuffers[] = [];
  for (let i = 0; i < 3; i++) readings.push(await readBuffers(db(), '123456', id, soakReference(1), t.clock.now()));
  const least = { ...readings[0]! };
  for (const reading of readings)
    for (const read of Object.keys(least) as (keyof ReadBuffers)[]) least[read] = Math.min(least[read], reading[read]);
  return least;
}

test('the fill writes payments the service reads as its own: states, amounts, events in order, positions, deliveries', async () => {
  await fill(1, 1_000);
  const count = async (sql: string) => Number((await db().execute<{ n: string | number }[]>(sql))[0]!.n);
  // Each payment's log agrees with its state and amounts (the service's own rules: events and aggregates together).
  expect(
    await count(`select count(*) as n from payment p where p.reference like 'soak-%' and (
      p.authorized_amount <> coalesce((select sum(amount) from payment_event e where e.payment_id = p.id::text and e.name = 'AUTHORIZED'), 0)
      or p.captured_amount <> coalesce((select sum(amount) from payment_event e where e.payment_id = p.id::text and e.name = 'CAPTURED'), 0)
      or (select name from payment_event e where e.payment_id = p.id::text order by id limit 1) <> 'CREATED'
      or (p.state = 'EXPIRED') <> exists (select 1 from payment_event e where e.payment_id = p.id::text and e.name = 'EXPIRED'))`),
  ).toBe(0);
  // Every event has one position; positions follow ids; the sequencer stands at the highest.
  expect(
    await count(`select count(*) as n from domain_event e where not exists (select 1 from event_position p where p.event_id = e.id)`),
  ).toBe(0);
  expect(
    await count(`select count(*) as n from (select position, lag(position) over (order by event_id) as before from event_position) p
      where p.position <= p.before`),
  ).toBe(0);
  expect(await count(`select count(*) as n from domain_event where dispatched_at is null`)).toBe(0);
  expect(await count(`select last_position - (select max(position) from event_position) as n from event_sequencer`)).toBe(0);
  // One delivery, delivered, with one attempt, per captured event of a registration's sales unit.
  const captured = await count(`select count(*) as n from domain_event where name = 'epayments.payment.captured.v1'`);
  expect(captured).toBe(900);
  expect(
    await count(`select count(*) as n from delivery d join delivery_attempt a on a.delivery_id = d.id
      where d.status = 'delivered' and d.webhook_id in ('${SOAK_WEBHOOKS[0].id}', '${SOAK_WEBHOOKS[1].id}')`),
  ).toBe(captured);

  // Through the public face: a captured payment and its log, and the graph's page of the merchant's payments.
  const merchant = new MerchantClient(t.baseUrl);
  const payment = await merchant.getPayment(soakReference(22));
  expect(payment.status).toBe(200);
  expect(payment.body).toMatchObject({ state: 'AUTHORIZED', aggregate: { capturedAmount: { value: 3_200 } } });
  const events = await merchant.events(soakReference(22));
  expect((events.body as { name: string }[]).map((e) => e.name)).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);
  const page = await merchant.graphql(
    `{ payments(first: 2, filter: { referencePrefix: "soak-000000002" }) { edges { node { reference } } } }`,
  );
  expect(page.body).toEqual({
    data: { payments: { edges: [{ node: { reference: soakReference(29) } }, { node: { reference: soakReference(28) } }] } },
  });
});

test("a payment's log, a page, the page's events, both searches and the outbox read cost the same over 1,000 and 4,000 payments", async () => {
  const small = await quietBuffers();
  await fill(1_001, 4_000);
  const large = await quietBuffers();
  // A btree a level deeper costs a buffer more per descent, and the page's events descend once per payment (50): at
  // 9,000 payments they read 132 -> 183 buffers. A read that walked the merchant's payments would read four times more.
  const grown = (Object.keys(small) as (keyof ReadBuffers)[]).filter((read) => large[read] > small[read] * 1.5 + 4);
  expect(grown.map((read) => `${read}: ${small[read]} -> ${large[read]} buffers`)).toEqual([]);
});

/**
 * The buffers of a capture's locking read of its payment with the look for its key in the payment's log, as the
 * service builds it (`lockedPayment`, in the runner's first statement), under a gate that lets it run, for a key the
 * log does not hold.
 */
async function lockingReadWithKeyLook(reference: string): Promise<Reading> {
  const createdBefore = keyRecordsKeptSince(t.app.services.config, t.clock.now());
  const read = lockedPayment({ msn: '123456', reference }, { key: 'a-key-never-used', names: ['CAPTURED'], createdBefore });
  const { sql, params } = gateAndRead(NO_GATE, read);
  return explainBuffers(db(), sql, params);
}

// The bench's captures (64 payments captured round robin, their logs growing by the hundred) walked each payment's log
// on every capture: 0.4 ms more of the database's CPU per capture (bench/README.md). A payment younger than the key
// window has every key's record, so its log is not read; an older one's is (data-lifecycle.test.ts).
test('a modification of a payment younger than the key window reads as much beside 3 events of the payment as beside 303', async () => {
  const merchant = new MerchantClient(t.baseUrl);
  const reference = await merchant.authorizedPayment(100_000);
  expect((await merchant.modify(reference, 'capture', 1)).status).toBe(200);
  const short = await leastOfThree(() => lockingReadWithKeyLook(reference));
  // 300 more captures of 1, each with its key, written into the log as their commits would have.
  await db().execute(
    `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at)
     select 'payment', p.id::text, p.msn, 'epayments.payment.captured.v1',
       jsonb_build_object('reference', p.reference, 'name', 'CAPTURED', 'amount', jsonb_build_object('currency', 'NOK', 'value', 1),
         'idempotencyKey', 'earlier-' || g, 'success', true),
       now()
     from payment p, generate_series(1, 300) g where p.reference = ? order by g`,
    [reference],
  );
  await db().execute('analyze domain_event');
  const long = await leastOfThree(() => lockingReadWithKeyLook(reference));
  // Looking in every payment's log, whatever its age, the read went from 5 buffers to 18.
  expect(flatVerdict("a young payment's locking read with its key's look", short, long, 2)).toBe('flat');
});
