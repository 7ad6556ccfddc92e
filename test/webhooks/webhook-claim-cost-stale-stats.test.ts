import { forkEm, type Em } from '../../src/platform/db/orm.js';
import { MAX_IN_FLIGHT } from '../../src/platform/delivery/delivery-engine.js';
import { RECEIVER_CONCURRENCY } from '../../src/platform/delivery/receiver-concurrency.js';
import { webhookDeliveryChannel } from '../../src/webhooks/webhook-delivery.channel.js';
import { MerchantClient } from '../support/merchant-client.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// issue 36: a burst of webhooks over a large delivery table. The planner's statistics were taken when every delivery
// was delivered, so the partial indexes of pending rows look empty; a claim planned on them read 751 buffers with 40
// deliveries pending and 104,821 with 2,000. A claim's plan must not lean on statistics: its work follows what it can
// take, however stale they are. Counted in buffers read (EXPLAIN), which no load on the machine changes; no time.
const DELIVERED = 20_000;
const FEW = 40;
const MANY = 2_000;

let t: TestApp;
let webhookId: string;

beforeAll(async () => {
  // No jobs: nothing claims, dispatches or analyzes behind the test's back.
  t = await startTestApp({ runJobs: false });
  // Nor autovacuum on this database's tables: the statistics stay those taken below, as stale as a burst finds them.
  if (onPostgres) {
    const leaves = await db().execute<{ name: string }[]>(
      `select t.relid::regclass::text as name
       from unnest(array['delivery', 'domain_event', 'delivery_attempt']::regclass[]) r, pg_partition_tree(r) t
       where t.isleaf`,
    );
    for (const { name } of leaves) await db().execute(`alter table ${name} set (autovacuum_enabled = false)`);
  }
  const registered = await new MerchantClient(t.baseUrl).request('POST', '/webhooks/v1/webhooks', {
    url: 'http://127.0.0.1:9/never-called',
    events: ['epayments.payment.created.v1'],
  });
  expect(registered.status).toBe(201);
  webhookId = registered.body.id as string;
});
afterAll(() => t.close());

const db = () => forkEm(t.app.services.orm);

/**
 * `count` payments' CREATED events, dispatched, and their deliveries to the registration in `status`, due `dueAgoMs`
 * before the app's clock (a manual one, which stands still).
 */
async function deliveries(prefix: string, count: number, status: 'pending' | 'delivered', dueAgoMs: number): Promise<void> {
  const em = db();
  await em.begin();
  try {
    await commitCreatedEvents(em, prefix, count);
    await em.execute(
      `with fresh as (
         update domain_event set dispatched_at = now() where dispatched_at is null returning id, stream_type, stream_id
       )
       insert into delivery (kind, receiver, webhook_id, event_id, stream_type, stream_id, status, attempt_count,
         next_attempt_at, delivered_at, created_at)
       select 'webhook', ?, ?, id, stream_type, stream_id, ?, ?, ?::timestamptz,
         case when ? = 'delivered' then now() end, now()
       from fresh order by id`,
      [webhookId, webhookId, status, status === 'delivered' ? 1 : 0, new Date(t.clock.now().getTime() - dueAgoMs), status],
    );
    await em.commit();
  } catch (error) {
    await em.rollback();
    throw error;
  }
}

/** The buffers a webhook claim reads: its statement under EXPLAIN ANALYZE in a transaction rolled back. */
async function claimBuffers(): Promise<number> {
  const em = db();
  await em.begin();
  try {
    let buffers: number | undefined;
    const explaining = {
      execute: async (sql: string, params: unknown[]) => {
        const [row] = await em.execute<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }[]>(
          `explain (analyze, buffers, format json) ${sql}`,
          params,
        );
        const plan = row!['QUERY PLAN'][0].Plan;
        buffers = plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
        return [];
      },
    } as unknown as Em;
    await webhookDeliveryChannel(t.app.services).claim(explaining, MAX_IN_FLIGHT, { initial: RECEIVER_CONCURRENCY.initial, of: {} });
    return buffers!;
  } finally {
    await em.rollback();
  }
}

test('a claim over stale statistics reads no more with thousands of deliveries pending than with a few', async () => {
  await deliveries('delivered-', DELIVERED, 'delivered', 60_000);
  // Statistics taken now: not one pending delivery, not one undispatched event.
  await db().execute('analyze delivery, domain_event, delivery_attempt');

  await deliveries('few-', FEW, 'pending', 1_000);
  const few = await claimBuffers();
  // Due before the few: the second claim takes rows of its own, not the ones the first one's rolled-back update left
  // dead versions of (which it would read again, whatever the backlog).
  await deliveries('many-', MANY - FEW, 'pending', 2_000);
  const many = await claimBuffers();

  // Fifty times the backlog. What grows is the depth of the indexes the claim reads and updates; a plan that walked
  // the backlog read a hundred times as much (2,968 and 296,953 buffers on PostgreSQL before issue 36).
  expect(many).toBeLessThan(few * 1.5);
});
