import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forkEm } from '../../src/platform/db/orm.js';
import { RECEIVER_CONCURRENCY } from '../../src/platform/delivery/receiver-concurrency.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { eventually } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// issue 33 point 12: deliveries under load. A claim's lease ran out while its result waited to be recorded, and the
// delivery went out twice; each receiver had a fixed cap of POSTs in flight, which a receiver answering in 150 ms
// could not be sent enough at. The clock is the test's: a lease runs out only when the test moves it.
const CREATED = 'epayments.payment.created.v1';
const LEASE_MS = 1_000;
/**
 * Dozens of deliveries on the embedded database, which runs in the test's own thread: on a machine loaded tenfold they
 * take tens of seconds, so these waits allow more than the usual deadline (a passing test never waits it out).
 */
const LOADED_DEADLINE_MS = 3 * CONDITION_DEADLINE_MS;

let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp({ deliveryLeaseMs: LEASE_MS });
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(async () => {
  await t.close();
});

const db = () => forkEm(t.app.services.orm);

async function registerAt(url: string): Promise<{ id: string; secret: string }> {
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', { url, events: [CREATED] });
  expect(registered.status).toBe(201);
  return { id: registered.body.id, secret: registered.body.secret };
}

/** Stops the registration's deliveries, so the next test's receiver is the only one at work. */
async function unregister(id: string): Promise<void> {
  expect((await merchant.request('DELETE', `/webhooks/v1/webhooks/${id}`)).status).toBe(204);
}

describe('a receiver that answers after the lease has run out', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver.close();
  });

  test('gets the delivery once: the lease is renewed while the POST is in flight', async () => {
    let answer!: (status: number) => void;
    const held = new Promise<number>((resolve) => (answer = resolve));
    const registration = await registerAt(receiver.url('/slow'));
    receiver.route('/slow', registration.secret, () => ({ held }));
    const reference = newReference('lease');
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    await receiver.waitFor((received) => received.length === 1, 'the POST');
    const [delivery] = await db().execute<{ id: string | number }[]>(`select id from delivery where webhook_id = ?`, [registration.id]);
    const leaseOf = async () => {
      const [row] = await db().execute<{ lease_until: string | Date | null }[]>(`select lease_until from delivery where id = ?`, [
        delivery!.id,
      ]);
      return row?.lease_until == null ? 0 : new Date(row.lease_until).getTime();
    };

    // Twice past the lease the holder was given: each time, a claim that found the lease run out would send the
    // delivery again. The second renewal also means the round after the first one (with its claim) is over.
    for (let round = 0; round < 2; round++) {
      t.clock.advance(3 * LEASE_MS);
      const movedTo = t.clock.now().getTime();
      await eventually(
        async () => receiver.received.length > 1 || (await leaseOf()) > movedTo,
        'the lease renewed past the moved clock (or the delivery sent again)',
      );
    }
    // Renewed, not merely never claimed again: another instance's claim goes by the lease alone.
    expect(await leaseOf()).toBeGreaterThan(t.clock.now().getTime());
    const attempts = async () =>
      Number(
        (
          await db().execute<{ n: string | number }[]>(`select count(*) as n from delivery_attempt where delivery_id = ?`, [delivery!.id])
        )[0]!.n,
      );
    expect(await attempts()).toBe(1);

    answer(200);
    await eventually(
      async () =>
        (await db().execute<{ status: string }[]>(`select status from delivery where id = ?`, [delivery!.id]))[0]?.status === 'delivered',
      'the delivery recorded as delivered',
    );
    expect(receiver.at('/slow')).toHaveLength(1);
    expect(await attempts()).toBe(1);
    await unregister(registration.id);
  });
});

/**
 * A receiver on 127.0.0.1: answers the first `answerFirst` POSTs with `status` after `delayMs`, and holds every later
 * one until `close()`. Notes how many POSTs were unanswered at each arrival (itself included).
 */
class TestReceiver {
  readonly concurrencyAtArrival: number[] = [];
  private pending = 0;
  private server: Server | undefined;

  constructor(private readonly o: { status: number; delayMs: number; answerFirst?: number }) {}

  get received(): number {
    return this.concurrencyAtArrival.length;
  }

  /** POSTs received and not answered. */
  get unanswered(): number {
    return this.pending;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.pending++;
        this.concurrencyAtArrival.push(this.pending);
        if (this.received > (this.o.answerFirst ?? Infinity)) return;
        setTimeout(() => {
          this.pending--;
          res.writeHead(this.o.status).end();
        }, this.o.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/receiver`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe('each receiver’s concurrency follows its answers', () => {
  test('a receiver that keeps up is given more POSTs at once than it started with', async () => {
    // It answers the first 24 at once, then answers no more: the POSTs it then holds are as many as its cap has grown to.
    const receiver = new TestReceiver({ status: 200, delayMs: 0, answerFirst: 24 });
    const registration = await registerAt(await receiver.start());
    try {
      // Hundreds of payments due at once: one POST each in flight at a time, so only the receiver's cap bounds them.
      await commitCreatedEvents(db(), `grow-${Date.now()}-`, 60);
      await eventually(
        () => receiver.unanswered > RECEIVER_CONCURRENCY.initial,
        `more than ${RECEIVER_CONCURRENCY.initial} POSTs held at once`,
        LOADED_DEADLINE_MS,
      );
    } finally {
      await unregister(registration.id);
      await receiver.close();
    }
  });

  test('a failing receiver is given half as many once the first failure is answered', async () => {
    const receiver = new TestReceiver({ status: 503, delayMs: 20 });
    const registration = await registerAt(await receiver.start());
    try {
      await commitCreatedEvents(db(), `fail-${Date.now()}-`, 48);
      const first = RECEIVER_CONCURRENCY.initial;
      // No more than the initial cap went out before the first answer; a claim that read the cap just before it may
      // still have been sent at the initial one, so the POSTs are counted from the second cap's worth on.
      await eventually(() => receiver.concurrencyAtArrival.length >= 2 * first + 8, 'POSTs after the first rounds', LOADED_DEADLINE_MS);
      expect(Math.max(...receiver.concurrencyAtArrival)).toBeLessThanOrEqual(first);
      expect(Math.max(...receiver.concurrencyAtArrival.slice(2 * first))).toBeLessThanOrEqual(first / 2);
    } finally {
      await unregister(registration.id);
      await receiver.close();
    }
  });
});
