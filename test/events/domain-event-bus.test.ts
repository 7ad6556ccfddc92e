import pg from 'pg';
import type { NotificationListener } from '../../src/platform/events/notification-listener.js';
import { DomainEventBus } from '../../src/platform/events/domain-event-bus.js';
import type { Orm } from '../../src/platform/db/orm.js';
import type { OutboxEvent } from '../../src/platform/events/outbox-event.js';
import { MERCHANT_A, MerchantClient, newReference } from '../support/merchant-client.js';
import { eventually } from '../support/subscriber.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A LISTEN connection the test drives: it hears exactly the notifications the test hands it, and "reconnects"
 * when told, so a notification lost while the connection was down is lost for certain, not by a race.
 */
class ScriptedNotifications implements NotificationListener {
  private onPayload: (payload: string) => void = () => undefined;
  private onReconnected: () => void = () => undefined;

  async start(onPayload: (payload: string) => void, onReconnected: () => void): Promise<void> {
    this.onPayload = onPayload;
    this.onReconnected = onReconnected;
  }

  async stop(): Promise<void> {}

  hear(id: number): void {
    this.onPayload(String(id));
  }

  reconnected(): void {
    this.onReconnected();
  }
}

let t: TestApp;
let merchant: MerchantClient;
const buses: DomainEventBus[] = [];

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl, MERCHANT_A);
});
afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.stop()));
});
afterAll(() => t.close());

async function startBus(
  orm: Orm = t.app.services.orm,
): Promise<{ bus: DomainEventBus; notifications: ScriptedNotifications; received: OutboxEvent[] }> {
  const notifications = new ScriptedNotifications();
  const bus = new DomainEventBus(orm, notifications);
  buses.push(bus);
  await bus.start();
  const received: OutboxEvent[] = [];
  bus.subscribe({ msn: MERCHANT_A.msn, streamType: 'payment' }, (event) => received.push(event));
  return { bus, notifications, received };
}

/** The id of the newest event of the payment `reference`. */
async function newestEventId(reference: string): Promise<number> {
  const rows = await t.app.services.orm.em
    .fork()
    .getConnection()
    .execute<{ id: unknown }[]>('select max(id) as id from payment_event where reference = ?', [reference]);
  return Number(rows[0]!.id);
}

test('a read that fails is retried, so the events it was for still reach subscribers', async () => {
  let failures = 2;
  const real = t.app.services.orm;
  // The ORM as the bus sees it, except that the first reads fail as they would on a dropped connection.
  const flaky = {
    em: {
      fork: () => {
        const em = real.em.fork();
        const find = em.find.bind(em);
        em.find = ((...args: Parameters<typeof find>) => {
          if (failures <= 0) return find(...args);
          failures--;
          return Promise.reject(new Error('connection terminated'));
        }) as typeof find;
        return em;
      },
    },
  } as unknown as Orm;
  const { notifications, received } = await startBus(flaky);
  const reference = newReference();
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const id = await newestEventId(reference);
  notifications.hear(id);
  await eventually(() => received.length === 1, 'the event after the failed reads');
  expect(failures).toBe(0);
  expect(received.map((event) => [event.id, event.payload.reference])).toEqual([[id, reference]]);
});

const testOnPostgres = onPostgres ? test : test.skip;

testOnPostgres('an event with a lower id that commits while the listener is down is caught up after the reconnect', async () => {
  const reference = newReference();
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const template = await newestEventId(reference);
  // Committed before the bus started: history, never replayed by a catch-up.
  const { notifications, received } = await startBus();

  const copy = `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at, dispatched_at)
      select stream_type, stream_id, msn, 'epayments.payment.captured.v1', payload || '{"name": "CAPTURED"}', occurred_at, occurred_at
      from domain_event where id = $1
      returning id`;
  const holder = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
  const other = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
  await holder.connect();
  await other.connect();
  try {
    // The lower id is drawn first and its transaction held open; a higher id commits and is heard.
    await holder.query('begin');
    const lower = Number((await holder.query(copy, [template])).rows[0].id);
    const higher = Number((await other.query(copy, [template])).rows[0].id);
    expect(higher).toBeGreaterThan(lower);
    notifications.hear(higher);
    await eventually(() => received.length === 1, 'the higher event');

    // The connection is down: the lower event commits and its notification is never heard.
    await holder.query('commit');
    notifications.reconnected();
    await eventually(() => received.length === 2, 'the lower event, from the catch-up');
    expect(received.map((event) => event.id)).toEqual([higher, lower]);

    // Its notification arriving late (or a duplicate) is not published twice.
    notifications.hear(lower);
    const next = Number((await other.query(copy, [template])).rows[0].id);
    notifications.hear(next);
    await eventually(() => received.length === 3, 'the next event');
    expect(received.map((event) => event.id)).toEqual([higher, lower, next]);
  } finally {
    await holder.end();
    await other.end();
  }
});
