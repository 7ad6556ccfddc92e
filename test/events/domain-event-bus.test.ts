import pg from 'pg';
import type { NotificationListener } from '../../src/platform/events/notification-listener.js';
import { DomainEventBus } from '../../src/platform/events/domain-event-bus.js';
import { forkEm, type Orm } from '../../src/platform/db/orm.js';
import type { OutboxEvent } from '../../src/platform/events/outbox-event.js';
import { MERCHANT_A, MerchantClient, newReference } from '../support/merchant-client.js';
import { eventually } from '../support/subscriber.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { countingBusWakes } from '../support/bus-wakes.js';

/** An announcement channel the test drives: it hears exactly what the test hands it. */
class ScriptedNotifications implements NotificationListener {
  private onPayload: (payload: string) => void = () => undefined;

  async start(onPayload: (payload: string) => void): Promise<void> {
    this.onPayload = onPayload;
  }

  async notify(): Promise<void> {}

  async stop(): Promise<void> {}

  hear(payload: string): void {
    this.onPayload(payload);
  }
}

/** Long enough that within a test only what the test does wakes the bus. */
const NO_POLL = 3_600_000;

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
  options: { orm?: Orm; pollMs?: number } = {},
): Promise<{ bus: DomainEventBus; notifications: ScriptedNotifications; received: OutboxEvent[] }> {
  const notifications = new ScriptedNotifications();
  const bus = new DomainEventBus(options.orm ?? t.app.services.orm, notifications, { pollMs: options.pollMs ?? NO_POLL });
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

/** Another event of the payment whose event `template` is, written by SQL alone: no instance's commit hook sees it. */
const COPY = `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at, dispatched_at)
    select stream_type, stream_id, msn, 'epayments.payment.captured.v1', payload || '{"name": "CAPTURED"}', occurred_at, occurred_at
    from domain_event where id = $1
    returning id`;

async function copyEvent(template: number): Promise<number> {
  const connection = t.app.services.orm.em.fork().getConnection();
  const rows = await connection.execute<{ id: unknown }[]>(COPY.replace('$1', '?'), [template]);
  return Number(rows[0]!.id);
}

test('an event committed elsewhere reaches subscribers when another instance announces its commit', async () => {
  const reference = newReference();
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const template = await newestEventId(reference);
  const { notifications, received } = await startBus();
  const id = await copyEvent(template);
  notifications.hear('another-instance');
  await eventually(() => received.length === 1, 'the event after the announcement');
  expect(received.map((event) => [event.id, event.payload.reference])).toEqual([[id, reference]]);
});

test('without any wake-up the poll finds the event, and a later read does not publish it again', async () => {
  const reference = newReference();
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const template = await newestEventId(reference);
  const { notifications, received } = await startBus({ pollMs: 20 });
  const id = await copyEvent(template);
  await eventually(() => received.length === 1, 'the event from the poll');
  notifications.hear('another-instance');
  const next = await copyEvent(template);
  await eventually(() => received.length === 2, 'the next event');
  expect(received.map((event) => event.id)).toEqual([id, next]);
});

test('a read that fails is retried, so the events it was for still reach subscribers', async () => {
  let failures = 0;
  const real = t.app.services.orm;
  // The ORM as the bus sees it, except that reads fail while `failures` lasts, as on a dropped connection.
  const flaky = {
    em: {
      fork: () => {
        const em = forkEm(real);
        const execute = em.execute.bind(em);
        em.execute = ((...args: Parameters<typeof execute>) => {
          if (failures <= 0) return execute(...args);
          failures--;
          return Promise.reject(new Error('connection terminated'));
        }) as typeof execute;
        return em;
      },
    },
  } as unknown as Orm;
  const reference = newReference();
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const template = await newestEventId(reference);
  const { notifications, received } = await startBus({ orm: flaky });
  failures = 2;
  const id = await copyEvent(template);
  notifications.hear('another-instance');
  await eventually(() => received.length === 1, 'the event after the failed reads');
  expect(failures).toBe(0);
  expect(received.map((event) => [event.id, event.payload.reference])).toEqual([[id, reference]]);
});

const testOnPostgres = onPostgres ? test : test.skip;

testOnPostgres('an event whose lower id commits after a higher id was read is still delivered, once', async () => {
  const reference = newReference();
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  const template = await newestEventId(reference);
  const { notifications, received } = await startBus();

  const holder = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
  const other = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
  await holder.connect();
  await other.connect();
  try {
    // The lower id is drawn first and its transaction held open; a higher id commits and is read.
    await holder.query('begin');
    const lower = Number((await holder.query(COPY, [template])).rows[0].id);
    const higher = Number((await other.query(COPY, [template])).rows[0].id);
    expect(higher).toBeGreaterThan(lower);
    notifications.hear('another-instance');
    await eventually(() => received.length === 1, 'the higher event');
    // Reads while the lower one is still uncommitted publish nothing more.
    notifications.hear('another-instance');
    await eventually(() => !buses[0]!['reading'], 'the read to finish');
    expect(received.map((event) => event.id)).toEqual([higher]);

    // The lower event commits after the higher one was read: the next read finds it.
    await holder.query('commit');
    notifications.hear('another-instance');
    await eventually(() => received.length === 2, 'the lower event');
    expect(received.map((event) => event.id)).toEqual([higher, lower]);

    // Further reads publish neither again.
    const next = Number((await other.query(COPY, [template])).rows[0].id);
    notifications.hear('another-instance');
    await eventually(() => received.length === 3, 'the next event');
    notifications.hear('another-instance');
    await eventually(() => !buses[0]!['reading'], 'the read to finish');
    expect(received.map((event) => event.id)).toEqual([higher, lower, next]);
  } finally {
    await holder.end();
    await other.end();
  }
});

testOnPostgres('a writing transaction sends no notification: the insert trigger is gone', async () => {
  const listener = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
  await listener.connect();
  const heard: string[] = [];
  listener.on('notification', (message) => heard.push(message.payload ?? ''));
  try {
    await listener.query('listen domain_event');
    const holder = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
    await holder.connect();
    const reference = newReference();
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    const template = await newestEventId(reference);
    // Heard only the instances' announcements after their commits, which carry an instance's tag; an insert trigger
    // would send the id.
    const id = Number((await holder.query(COPY, [template])).rows[0].id);
    await holder.end();
    await listener.query('select 1');
    expect(heard).not.toContain(String(id));
  } finally {
    await listener.end();
  }
});

// issue 23, part 4: a modification writes its event by SQL, not a flush, and wakes the bus itself, at its commit.
test("a capture's commit wakes the bus once before the response; a replay or a refusal that wrote no event wakes nothing", async () => {
  const reference = await merchant.authorizedPayment(1_000);
  await countingBusWakes(t.app.services.events, async (wakes) => {
    expect((await merchant.modify(reference, 'capture', 100, 'wake-capture')).status).toBe(200);
    expect(wakes()).toBe(1);
    expect((await merchant.modify(reference, 'capture', 100, 'wake-capture')).status).toBe(200);
    expect((await merchant.modify(reference, 'capture', 5_000)).status).toBe(400);
    expect(wakes()).toBe(1);
  });
});

test("a commit carrying an event wakes this instance's bus before the response", async () => {
  await countingBusWakes(t.app.services.events, async (wakes) => {
    expect((await merchant.createPayment({ reference: newReference() })).status).toBe(201);
    expect(wakes()).toBe(1);
    // A request that commits no event wakes nothing.
    expect((await merchant.getPayment(newReference())).status).toBe(404);
    expect(wakes()).toBe(1);
  });
});
