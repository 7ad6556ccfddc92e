import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modules } from '../../src/modules.js';
import { testMerchants } from '../../src/merchants/merchants.seed.js';
import { forkEm, openDatabase, type Orm } from '../../src/platform/db/orm.js';
import { callbackKinds, type CallbackKind } from '../../src/platform/delivery/callback-kinds.js';
import { callbackReceiver } from '../../src/platform/delivery/record-callback.js';
import { INTERRUPTED_ATTEMPT_ERROR } from '../../src/platform/delivery/delivery-table.js';
import { toGlobalId } from '../../src/platform/graph/relay.js';
import { MerchantClient } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * issue 23: webhook deliveries and callbacks move from their two table pairs into the one generic pair (`delivery`,
 * `delivery_attempt`). A database that has all kinds of rows in the old tables (delivered, failed, pending, one cut
 * off mid-POST) is migrated: every row and attempt is there afterwards, webhook deliveries under the ids the graph
 * handed out, and the service started on it sends what was still pending.
 */

/** The last migration before the generic tables: the shape existing databases have. */
const BEFORE = 'Migration20261126170100EventsOffCommitPath';
const UNDER_TEST = 'Migration20261126180000Deliveries';

const KIND: CallbackKind = {
  name: 'test.migrated-callback',
  timeoutMs: () => 5_000,
  retry: { maxAttempts: 5, firstDelayMs: 1_000, maxDelayMs: 1_000 },
};
const SECRET = 'migrated-secret';
const MSN = '123456';

type Row = Record<string, unknown>;

let db: TestDatabase;
let dataDir: string;
let orm: Orm;
let receiver: WebhookReceiver;
const webhookId = randomUUID();
const paymentId = randomUUID();
/** Due a minute ago: the service started afterwards finds what is pending due. */
const at = new Date(Date.now() - 60_000);

const sql = <T = Row>(query: string, params: unknown[] = []) => forkEm(orm).execute<T[]>(query, params);

const WEBHOOK_COLUMNS = `id, webhook_id, event_id, stream_type, stream_id, status, attempt_count, next_attempt_at, lease_until,
  delivered_at, last_status_code, created_at`;
const CALLBACK_COLUMNS = `kind, stream_type, stream_id, msn, url, authorization_value, body, status, attempt_count, next_attempt_at,
  lease_until, delivered_at, last_status_code, trace_parent, created_at`;
const ATTEMPT_COLUMNS = 'attempted_at, status_code, duration_ms, error';

beforeAll(async () => {
  callbackKinds.register(KIND);
  receiver = await new WebhookReceiver().start();
  receiver.route('/migrated-webhook', SECRET);
  db = await createTestDatabase();
  // On PGlite the database lives in a directory, so the service started later opens the same one.
  dataDir = onPostgres ? 'memory://' : await mkdtemp(join(tmpdir(), 'paygraph-delivery-migration-'));
  orm = await openDatabase({
    databaseUrl: db.databaseUrl,
    dataDir,
    pglite: db.pglite,
    entities: modules.flatMap((m) => m.entities ?? []),
    migrations: modules.flatMap((m) => m.migrations ?? []).filter((m) => m.name <= UNDER_TEST),
    migrateTo: BEFORE,
  });
  // The merchants as the schema before the migration holds them: today's entities map columns it does not have yet.
  // The service started later seeds the rest (its seed leaves existing rows as they are).
  for (const m of testMerchants) {
    await sql(`insert into merchant (id, name, org_number, created_at) values (?, ?, ?, ?)`, [m.id, m.name, m.orgNumber, at]);
    await sql(`insert into sales_unit (msn, merchant_id, name, long_living_payments_allowed, created_at) values (?, ?, ?, ?, ?)`, [
      m.msn,
      m.id,
      m.salesUnitName,
      m.longLivingPaymentsAllowed,
      at,
    ]);
  }

  await sql(`insert into webhook (id, msn, url, events, secret, created_at) values (?, ?, ?, ?, ?, ?)`, [
    webhookId,
    MSN,
    receiver.url('/migrated-webhook'),
    JSON.stringify(['epayments.payment.created.v1', 'epayments.payment.authorized.v1', 'epayments.payment.captured.v1']),
    SECRET,
    at,
  ]);
  const events: number[] = [];
  for (const [name, reference] of [
    ['CREATED', 'migrated-1'],
    ['AUTHORIZED', 'migrated-1'],
    ['CAPTURED', 'migrated-1'],
  ] as const) {
    const [row] = await sql(
      `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at, dispatched_at)
       values ('payment', ?, ?, ?, ?, ?, ?) returning id`,
      [
        paymentId,
        MSN,
        `epayments.payment.${name.toLowerCase()}.v1`,
        JSON.stringify({
          reference,
          pspReference: `psp-${name}`,
          name,
          amount: { currency: 'NOK', value: 1000 },
          idempotencyKey: null,
          success: true,
        }),
        at,
        at,
      ],
    );
    events.push(Number(row!.id));
  }
  const delivery = async (
    eventId: number,
    status: string,
    attemptCount: number,
    extra: { deliveredAt?: Date; lastStatusCode?: number; leaseUntil?: Date },
  ) =>
    Number(
      (
        await sql(
          `insert into webhook_delivery (webhook_id, event_id, stream_type, stream_id, status, attempt_count, next_attempt_at, lease_until,
             delivered_at, last_status_code, created_at)
           values (?, ?, 'payment', ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
          [
            webhookId,
            eventId,
            paymentId,
            status,
            attemptCount,
            at,
            extra.leaseUntil ?? null,
            extra.deliveredAt ?? null,
            extra.lastStatusCode ?? null,
            at,
          ],
        )
      )[0]!.id,
    );
  const webhookAttempt = (deliveryId: number, statusCode: number | null, durationMs: number | null) =>
    sql(`insert into webhook_delivery_attempt (delivery_id, attempted_at, status_code, duration_ms, error) values (?, ?, ?, ?, ?)`, [
      deliveryId,
      at,
      statusCode,
      durationMs,
      statusCode === null && durationMs !== null ? 'connect ECONNREFUSED' : null,
    ]);
  // Delivered on its first attempt; failed for good after two; pending, its instance stopped mid-POST (a lease run
  // out, an attempt without outcome).
  const delivered = await delivery(events[0]!, 'delivered', 1, { deliveredAt: at, lastStatusCode: 200 });
  await webhookAttempt(delivered, 200, 12);
  const failed = await delivery(events[1]!, 'failed', 2, { lastStatusCode: 500 });
  await webhookAttempt(failed, 500, 30);
  await webhookAttempt(failed, null, 5);
  const cutOff = await delivery(events[2]!, 'pending', 0, { leaseUntil: new Date(at.getTime() + 1) });
  await webhookAttempt(cutOff, null, null);

  const callback = async (status: string, attemptCount: number, body: string, deliveredAt: Date | null) =>
    Number(
      (
        await sql(
          `insert into outbound_callback (kind, stream_type, stream_id, msn, url, authorization_value, body, status, attempt_count,
             next_attempt_at, delivered_at, last_status_code, created_at, trace_parent)
           values (?, 'test-stream', 'migrated', ?, ?, 'Bearer migrated', ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
          [
            KIND.name,
            MSN,
            receiver.url('/migrated-callback'),
            body,
            status,
            attemptCount,
            at,
            deliveredAt,
            attemptCount > 0 ? (deliveredAt ? 200 : 503) : null,
            at,
            '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          ],
        )
      )[0]!.id,
    );
  const callbackAttempt = (callbackId: number, statusCode: number) =>
    sql(`insert into outbound_callback_attempt (callback_id, attempted_at, status_code, duration_ms) values (?, ?, ?, 7)`, [
      callbackId,
      at,
      statusCode,
    ]);
  await callbackAttempt(await callback('delivered', 1, '{"n":1}', at), 200);
  await callbackAttempt(await callback('pending', 1, '{"n":2}', null), 503);
});

let app: TestApp | undefined;

afterAll(async () => {
  // The test's own connection, until the service takes over the database.
  if (app) await app.close();
  else await orm.close(true);
  await db.drop();
  await receiver.close();
  if (!onPostgres) await rm(dataDir, { recursive: true, force: true });
});

test('every delivery and attempt moves into the generic tables, webhook deliveries under their ids', async () => {
  const webhooks = await sql(`select ${WEBHOOK_COLUMNS} from webhook_delivery order by id`);
  const webhookAttempts = await sql(`select id, delivery_id, ${ATTEMPT_COLUMNS} from webhook_delivery_attempt order by id`);
  const callbacks = await sql(`select id, ${CALLBACK_COLUMNS} from outbound_callback order by id`);
  const callbackAttempts = await sql(`select callback_id, ${ATTEMPT_COLUMNS} from outbound_callback_attempt order by id`);
  expect([webhooks.length, webhookAttempts.length, callbacks.length, callbackAttempts.length]).toEqual([3, 4, 2, 2]);

  await orm.migrator.up({ to: UNDER_TEST });

  expect(
    await sql(`select table_name from information_schema.tables
      where table_name in ('webhook_delivery', 'webhook_delivery_attempt', 'outbound_callback', 'outbound_callback_attempt')`),
  ).toEqual([]);
  // Webhook deliveries and their attempts: the same rows under the same ids, their registration the receiver.
  expect(await sql(`select ${WEBHOOK_COLUMNS} from delivery where kind = 'webhook' order by id`)).toEqual(webhooks);
  expect(await sql(`select receiver from delivery where kind = 'webhook'`)).toEqual(webhooks.map(() => ({ receiver: webhookId })));
  const webhookIds = webhooks.map((row) => row.id);
  expect(
    await sql(`select id, delivery_id, ${ATTEMPT_COLUMNS} from delivery_attempt where delivery_id in (?, ?, ?) order by id`, webhookIds),
  ).toEqual(webhookAttempts);
  // Callbacks: the same rows in the same order (which orders a stream's callbacks), under ids above the webhooks'.
  const moved = await sql(`select id, receiver, ${CALLBACK_COLUMNS} from delivery where kind <> 'webhook' order by id`);
  expect(moved.map(({ id: _id, receiver: _receiver, ...rest }) => rest)).toEqual(callbacks.map(({ id: _id, ...rest }) => rest));
  expect(moved.map((row) => row.receiver)).toEqual(callbacks.map((row) => callbackReceiver(row.url as string)));
  expect(Math.min(...moved.map((row) => Number(row.id)))).toBeGreaterThan(Math.max(...webhookIds.map(Number)));
  // Each callback's attempts follow it to its new id.
  const newIdOf = new Map(callbacks.map((row, i) => [Number(row.id), Number(moved[i]!.id)]));
  const movedAttempts = await sql(
    `select delivery_id, ${ATTEMPT_COLUMNS} from delivery_attempt where delivery_id in (?, ?) order by id`,
    moved.map((row) => row.id),
  );
  expect(movedAttempts.map(({ delivery_id, ...rest }) => ({ id: Number(delivery_id), ...rest }))).toEqual(
    callbackAttempts.map(({ callback_id, ...rest }) => ({ id: newIdOf.get(Number(callback_id)), ...rest })),
  );
  // Nothing lost, nothing added; new rows continue above the moved ones.
  expect(await sql('select count(*)::int as n from delivery')).toEqual([{ n: 5 }]);
  expect(await sql('select count(*)::int as n from delivery_attempt')).toEqual([{ n: 6 }]);
  const [next] = await sql(
    `insert into delivery (kind, receiver, stream_type, stream_id, url, body, status, attempt_count, next_attempt_at, created_at)
     values (?, md5('http://127.0.0.1:9/x')::uuid, 's', 'x', 'http://127.0.0.1:9/x', '{}', 'failed', 0, ?, ?) returning id`,
    [KIND.name, at, at],
  );
  expect(Number(next!.id)).toBeGreaterThan(Math.max(...moved.map((row) => Number(row.id))));
  await sql('delete from delivery where id = ?', [next!.id]);

  // Reverted, the old tables come back with the same rows (callbacks under their new ids), and up again.
  await orm.migrator.down({ to: BEFORE });
  expect(await sql(`select ${WEBHOOK_COLUMNS} from webhook_delivery order by id`)).toEqual(webhooks);
  expect(await sql(`select id, delivery_id, ${ATTEMPT_COLUMNS} from webhook_delivery_attempt order by id`)).toEqual(webhookAttempts);
  const back = await sql(`select id, ${CALLBACK_COLUMNS} from outbound_callback order by id`);
  expect(back.map(({ id: _id, ...rest }) => rest)).toEqual(callbacks.map(({ id: _id, ...rest }) => rest));
  expect(back.map((row) => Number(row.id))).toEqual(moved.map((row) => Number(row.id)));
  expect(await sql(`select ${ATTEMPT_COLUMNS} from outbound_callback_attempt order by id`)).toEqual(
    callbackAttempts.map(({ callback_id: _id, ...rest }) => rest),
  );
  await orm.migrator.up({ to: UNDER_TEST });
  expect(await sql(`select ${WEBHOOK_COLUMNS} from delivery where kind = 'webhook' order by id`)).toEqual(webhooks);
  expect(await sql('select count(*)::int as n from delivery_attempt')).toEqual([{ n: 6 }]);
});

test('the service started on the migrated database sends what was pending and shows the deliveries as before', async () => {
  await orm.close(true);
  app = await startTestApp({ databaseUrl: db.databaseUrl, dataDir });
  orm = app.app.services.orm;

  // The webhook cut off mid-POST goes out again, signed; its cut-off attempt is marked interrupted.
  await receiver.waitFor((received) => received.some((r) => r.path === '/migrated-webhook' && r.status === 200), 'the pending webhook');
  const [webhook] = receiver.at('/migrated-webhook');
  expect(webhook).toMatchObject({ verified: true, body: { reference: 'migrated-1', name: 'CAPTURED' } });
  // The pending callback is sent with its recorded body and Authorization value.
  await receiver.waitFor((received) => received.some((r) => r.path === '/migrated-callback'), 'the pending callback');
  const callbacks = receiver.at('/migrated-callback');
  expect(callbacks.map((r) => [r.body, r.headers.authorization])).toEqual([[{ n: 2 }, 'Bearer migrated']]);

  const settled = async () => (await sql(`select count(*)::int as n from delivery where status = 'pending'`))[0]!.n === 0;
  for (const deadline = Date.now() + 20_000; !(await settled());) {
    if (Date.now() > deadline) throw new Error('deliveries still pending');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await sql(`select kind, status, attempt_count from delivery order by id`)).toEqual([
    { kind: 'webhook', status: 'delivered', attempt_count: 1 },
    { kind: 'webhook', status: 'failed', attempt_count: 2 },
    { kind: 'webhook', status: 'delivered', attempt_count: 1 },
    { kind: KIND.name, status: 'delivered', attempt_count: 1 },
    { kind: KIND.name, status: 'delivered', attempt_count: 2 },
  ]);

  // The graph reads the moved deliveries and attempts, with the ids it handed out before.
  const res = await new MerchantClient(app.baseUrl).graphql(
    `{ webhooks { deliveries(first: 10) { edges { node { id eventType eventName status attemptCount attempts(first: 5) { edges { node { state statusCode } } } } } } } }`,
  );
  expect(res.body.errors).toBeUndefined();
  const ids = (await sql(`select id from delivery where kind = 'webhook' order by id desc`)).map((row) => Number(row.id));
  expect(res.body.data.webhooks[0].deliveries.edges.map((e: any) => e.node)).toEqual([
    {
      id: toGlobalId('WebhookDelivery', ids[0]!),
      eventType: 'epayments.payment.captured.v1',
      eventName: 'CAPTURED',
      status: 'DELIVERED',
      attemptCount: 1,
      attempts: {
        edges: [{ node: { state: 'INTERRUPTED', statusCode: null } }, { node: { state: 'COMPLETED', statusCode: 200 } }],
      },
    },
    {
      id: toGlobalId('WebhookDelivery', ids[1]!),
      eventType: 'epayments.payment.authorized.v1',
      eventName: 'AUTHORIZED',
      status: 'FAILED',
      attemptCount: 2,
      attempts: { edges: [{ node: { state: 'COMPLETED', statusCode: 500 } }, { node: { state: 'COMPLETED', statusCode: null } }] },
    },
    {
      id: toGlobalId('WebhookDelivery', ids[2]!),
      eventType: 'epayments.payment.created.v1',
      eventName: 'CREATED',
      status: 'DELIVERED',
      attemptCount: 1,
      attempts: { edges: [{ node: { state: 'COMPLETED', statusCode: 200 } }] },
    },
  ]);
  // The attempt log was since converted to a partitioned table (Migration20261205040000DataLifecycle, which marked the
  // cut-off attempt interrupted in the old table), and the old table's attempts moved into its days a step later.
  const [interrupted] = await sql(`select error from delivery_attempt where delivery_id = ? and duration_ms is null`, [ids[0]]);
  expect(interrupted).toEqual({ error: INTERRUPTED_ATTEMPT_ERROR });
});
