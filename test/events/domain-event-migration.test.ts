import { randomUUID } from 'node:crypto';
import { forkEm, type Orm } from '../../src/platform/db/orm.js';
import { recordEvent } from '../../src/platform/events/record-event.js';
import { paymentWebhookBody } from '../../src/payments/payment-event.types.js';
import { readPaymentEvents } from '../../src/payments/payment.read-model.js';
import { openBeforeMigration } from '../support/database-before-migration.js';
import type { TestDatabase } from '../support/test-database.js';

/** The last migration before the one outbox: the shape existing databases have. */
const BEFORE = 'Migration20261123000004WebhookAttemptAtClaim';
/** The migration under test; later ones (other domains', some irreversible) are not this test's business. */
const UNDER_TEST = 'Migration20261123000005DomainEventStream';

let db: TestDatabase;
let orm: Orm;
const paymentId = randomUUID();
const webhookId = randomUUID();
const at = new Date('2026-11-22T12:00:00.123Z');

const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) => forkEm(orm).execute<T[]>(query, params);

beforeAll(async () => {
  ({ db, orm } = await openBeforeMigration(UNDER_TEST, BEFORE));
  const merchantId = randomUUID();
  await sql(`insert into merchant (id, name, org_number, created_at) values (?, 'M', '123456789', ?)`, [merchantId, at]);
  await sql(`insert into sales_unit (msn, merchant_id, name, created_at) values ('123456', ?, 'S', ?)`, [merchantId, at]);
  await sql(
    `insert into payment (id, msn, reference, psp_reference, state, currency, amount, authorized_amount, captured_amount,
       payment_method_type, user_flow, customer_interaction, approval_token, expires_at, created_at, updated_at)
     values (?, '123456', 'order-1', 'psp-1', 'AUTHORIZED', 'NOK', 1000, 1000, 400, 'WALLET', 'WEB_REDIRECT', 'CUSTOMER_NOT_PRESENT', ?, ?, ?, ?)`,
    [paymentId, randomUUID(), at, at, at],
  );
  const event = `insert into payment_event (payment_id, msn, reference, psp_reference, name, currency, amount, idempotency_key, success,
      occurred_at, dispatched_at) values (?, '123456', 'order-1', ?, ?, 'NOK', ?, ?, true, ?, ?)`;
  await sql(event, [paymentId, 'psp-e1', 'CREATED', 1000, 'key-1', at, at]);
  await sql(event, [paymentId, 'psp-e2', 'AUTHORIZED', 1000, null, at, at]);
  await sql(event, [paymentId, 'psp-e3', 'CAPTURED', 400, 'key-2', at, null]);
  await sql(`insert into webhook (id, msn, url, events, secret, created_at) values (?, '123456', 'https://example.com/hook', ?, 's', ?)`, [
    webhookId,
    JSON.stringify(['epayments.payment.authorized.v1']),
    at,
  ]);
  await sql(
    `insert into webhook_delivery (webhook_id, event_id, payment_id, status, attempt_count, next_attempt_at, created_at)
     select ?, id, payment_id, 'pending', 0, ?, ? from payment_event where name = 'AUTHORIZED'`,
    [webhookId, at, at],
  );
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

test('existing payment events move into the outbox with their ids, and the payment log reads exactly as before', async () => {
  const before = await readPaymentEvents(forkEm(orm), [paymentId]);
  const ids = before.map((event) => event.id);
  expect(before.map((event) => event.name)).toEqual(['CREATED', 'AUTHORIZED', 'CAPTURED']);

  await orm.migrator.up();

  // The log, its ids (the cursors handed out) and every field are unchanged, read through the payment stream.
  expect(await readPaymentEvents(forkEm(orm), [paymentId])).toEqual(before);
  const outbox = await sql('select id, stream_type, stream_id, msn, name, payload, dispatched_at from domain_event order by id');
  expect(outbox.map((row) => [Number(row.id), row.stream_type, row.stream_id, row.msn, row.name])).toEqual([
    [ids[0], 'payment', paymentId, '123456', 'epayments.payment.created.v1'],
    [ids[1], 'payment', paymentId, '123456', 'epayments.payment.authorized.v1'],
    [ids[2], 'payment', paymentId, '123456', 'epayments.payment.captured.v1'],
  ]);
  // The payload is the event's body once; the webhook body made from it is the ePayment one, as before.
  expect(outbox[2]!.payload).toEqual({
    reference: 'order-1',
    pspReference: 'psp-e3',
    name: 'CAPTURED',
    amount: { currency: 'NOK', value: 400 },
    idempotencyKey: 'key-2',
    success: true,
  });
  expect(JSON.parse(paymentWebhookBody(before[2]!))).toEqual({
    msn: '123456',
    reference: 'order-1',
    pspReference: 'psp-e3',
    name: 'CAPTURED',
    amount: { currency: 'NOK', value: 400 },
    timestamp: at.toISOString(),
    idempotencyKey: 'key-2',
    success: true,
  });
  // Still undispatched: the dispatcher picks it up after the upgrade.
  expect(outbox.map((row) => row.dispatched_at === null)).toEqual([false, false, true]);

  // Existing deliveries keep their event and are now ordered by stream.
  expect(await sql('select event_id, stream_type, stream_id from webhook_delivery')).toEqual([
    { event_id: expect.anything(), stream_type: 'payment', stream_id: paymentId },
  ]);

  // New events continue the same sequence, and the insert trigger announces them.
  const em = forkEm(orm);
  const next = recordEvent(em, {
    streamType: 'test-stream',
    streamId: 'x',
    msn: '123456',
    name: 'test.happened.v1',
    payload: { n: 1 },
    occurredAt: at,
  });
  await em.flush();
  expect(next.id).toBeGreaterThan(ids[2]!);
  expect(await sql(`select tgname from pg_trigger where tgrelid = 'domain_event'::regclass and not tgisinternal`)).toEqual([
    { tgname: 'domain_event_notify' },
  ]);
  // Another stream's event is no payment event.
  expect((await readPaymentEvents(forkEm(orm), [paymentId])).map((event) => event.id)).toEqual(ids);
});

test('the migration can be reverted: the payment log comes back as the table it was', async () => {
  const before = await readPaymentEvents(forkEm(orm), [paymentId]);
  await orm.migrator.down({ to: BEFORE });
  expect(await readPaymentEvents(forkEm(orm), [paymentId])).toEqual(before);
  expect(await sql(`select table_type from information_schema.tables where table_name = 'payment_event'`)).toEqual([
    { table_type: 'BASE TABLE' },
  ]);
  expect(await sql('select payment_id from webhook_delivery')).toEqual([{ payment_id: paymentId }]);
  await orm.migrator.up();
  expect(await readPaymentEvents(forkEm(orm), [paymentId])).toEqual(before);
});
