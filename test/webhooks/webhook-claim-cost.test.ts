import { loadConfig } from '../../src/config.js';
import { forkEm, type Em } from '../../src/platform/db/orm.js';
import { MAX_IN_FLIGHT } from '../../src/platform/delivery/delivery-engine.js';
import { RECEIVER_CONCURRENCY } from '../../src/platform/delivery/receiver-concurrency.js';
import { webhookDeliveryChannel } from '../../src/webhooks/webhook-delivery.channel.js';
import { MerchantClient } from '../support/merchant-client.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { eventually } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// issue 23: a claim's work must follow what it can take, not the backlog. A claim that read every pending delivery
// (to find the receivers and count their leases) grew slower as a receiver fell behind, so the claims that were to
// drain the backlog came less often: the webhook bench swung between keeping pace and a backlog of thousands. Counted
// in buffers read (EXPLAIN), which no load on the machine changes; no time is asserted.
const CREATED = 'epayments.payment.created.v1';
const TIMEOUT_MS = 60_000;

let t: TestApp;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({ webhooks: { ...loadConfig({}).webhooks, timeoutMs: TIMEOUT_MS } });
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  // Closing the receiver first ends the hanging POSTs, so the app's shutdown does not wait out their timeout.
  await receiver.close();
  await t.close();
});

const db = () => forkEm(t.app.services.orm);

async function pendingDeliveries(): Promise<number> {
  const [row] = await db().execute<{ n: string }[]>(`select count(*) as n from delivery where status = 'pending'`);
  return Number(row!.n);
}

/**
 * The buffers a webhook claim reads: the channel's own claim, its statement run under EXPLAIN ANALYZE in a transaction
 * that is rolled back, so it leases nothing.
 */
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

test('a claim reads no more with thousands of deliveries waiting for a receiver at its cap than with a few', async () => {
  const registered = await new MerchantClient(t.baseUrl).request('POST', '/webhooks/v1/webhooks', {
    url: receiver.url('/hang'),
    events: [CREATED],
  });
  expect(registered.status).toBe(201);
  receiver.route('/hang', registered.body.secret, () => ({ hang: 120_000 }));

  await commitCreatedEvents(db(), 'few-', 40);
  await eventually(() => receiver.at('/hang').length === RECEIVER_CONCURRENCY.initial, 'the receiver holding its cap');
  await eventually(async () => (await pendingDeliveries()) === 40, 'the few fanned out');
  const few = await claimBuffers();

  await commitCreatedEvents(db(), 'many-', 4_000);
  await eventually(async () => (await pendingDeliveries()) === 4_040, 'the many fanned out');
  const many = await claimBuffers();

  // A hundred times the backlog: before, a claim read every pending row (about 50 more pages of them here).
  expect(many).toBeLessThanOrEqual(few + 8);
  expect(receiver.at('/hang')).toHaveLength(RECEIVER_CONCURRENCY.initial);
});
