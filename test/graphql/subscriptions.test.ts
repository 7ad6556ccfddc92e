import WebSocket from 'ws';
import pg from 'pg';
import { LISTENER_APPLICATION_NAME } from '../../src/platform/events/notification-listener.js';
import { MERCHANT_A, MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { connectOnce, connectionParamsOf, eventually, graphqlWsUrl, median, Subscriber } from '../support/subscriber.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

const PAYMENT_EVENTS = `subscription Events($reference: String, $names: [PaymentEventName!]) {
  paymentEvents(reference: $reference, names: $names) {
    event { reference name amount { value currency } timestamp }
    payment { reference state aggregate { authorizedAmount { value } capturedAmount { value } } }
  }
}`;

interface Notification {
  paymentEvents: {
    event: { reference: string; name: string; amount: { value: number; currency: string }; timestamp: string };
    payment: { reference: string; state: string; aggregate: { authorizedAmount: { value: number }; capturedAmount: { value: number } } };
  };
}

let t: TestApp;
let merchantA: MerchantClient;
let merchantB: MerchantClient;
const open: Subscriber[] = [];
/** Apps that served a subscription in the current test. */
const serving = new Set<TestApp>();

beforeAll(async () => {
  t = await startTestApp();
  merchantA = new MerchantClient(t.baseUrl, MERCHANT_A);
  merchantB = new MerchantClient(t.baseUrl, MERCHANT_B);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  // Closing is asynchronous on the server; the next test counts subscriptions from a clean slate.
  for (const app of serving) await eventually(() => app.app.services.events.subscriberCount === 0, 'subscriptions to be released');
  serving.clear();
});
afterAll(() => t.close());

/** Subscribes and waits until the server holds the subscription, so nothing committed afterwards can be missed. */
async function subscribed(
  app: TestApp,
  merchant: MerchantClient,
  variables: Record<string, unknown> = {},
  params?: Record<string, unknown>,
): Promise<Subscriber<Notification>> {
  const before = app.app.services.events.subscriberCount;
  const subscriber = new Subscriber<Notification>(app.baseUrl, params ?? (await connectionParamsOf(merchant))).subscribe(
    PAYMENT_EVENTS,
    variables,
  );
  open.push(subscriber);
  serving.add(app);
  await eventually(() => app.app.services.events.subscriberCount > before, 'the subscription to register');
  return subscriber;
}

const summary = (s: Subscriber<Notification>) =>
  s.results.map((r) => [r.data.paymentEvents.event.reference, r.data.paymentEvents.event.name]);

describe('paymentEvents', () => {
  test('delivers CREATED, AUTHORIZED and CAPTURED live, each with the payment as it is after the event', async () => {
    const subscriber = await subscribed(t, merchantA);
    const reference = newReference();
    expect((await merchantA.createPayment({ reference, amount: { currency: 'NOK', value: 10_000 } })).status).toBe(201);
    await subscriber.waitFor(1);
    expect((await merchantA.forceApprove(reference)).status).toBe(200);
    await subscriber.waitFor(2);
    expect((await merchantA.modify(reference, 'capture', 3_000)).status).toBe(200);
    const [created, authorized, captured] = (await subscriber.waitFor(3)).map((r) => r.data.paymentEvents);

    expect(subscriber.results.every((r) => r.errors === undefined)).toBe(true);
    expect(created!.event).toEqual({
      reference,
      name: 'CREATED',
      amount: { value: 10_000, currency: 'NOK' },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(created!.payment).toEqual({
      reference,
      state: 'CREATED',
      aggregate: { authorizedAmount: { value: 0 }, capturedAmount: { value: 0 } },
    });
    expect(authorized!.event).toMatchObject({ name: 'AUTHORIZED', amount: { value: 10_000 } });
    expect(authorized!.payment).toEqual({
      reference,
      state: 'AUTHORIZED',
      aggregate: { authorizedAmount: { value: 10_000 }, capturedAmount: { value: 0 } },
    });
    expect(captured!.event).toMatchObject({ reference, name: 'CAPTURED', amount: { value: 3_000, currency: 'NOK' } });
    // A fresh unit of work per event: the payment is read again, not served from the first event's identity map.
    expect(captured!.payment.aggregate).toEqual({ authorizedAmount: { value: 10_000 }, capturedAmount: { value: 3_000 } });
  });

  test('narrows to one reference', async () => {
    const reference = newReference();
    const subscriber = await subscribed(t, merchantA, { reference });
    expect((await merchantA.createPayment()).status).toBe(201);
    expect((await merchantA.createPayment({ reference })).status).toBe(201);
    await subscriber.waitFor(1);
    // One socket delivers in commit order: the other payment's event, committed first, would have come first.
    expect(summary(subscriber)).toEqual([[reference, 'CREATED']]);
  });

  test('narrows to event names', async () => {
    const subscriber = await subscribed(t, merchantA, { names: ['CAPTURED', 'REFUNDED'] });
    const reference = await merchantA.authorizedPayment(5_000);
    await merchantA.modify(reference, 'capture', 2_000);
    await merchantA.modify(reference, 'refund', 500);
    await subscriber.waitFor(2);
    expect(summary(subscriber)).toEqual([
      [reference, 'CAPTURED'],
      [reference, 'REFUNDED'],
    ]);
  });

  test("merchant B's subscriber never receives merchant A's events", async () => {
    const subscriberB = await subscribed(t, merchantB);
    const subscriberA = await subscribed(t, merchantA);
    const referenceA = newReference();
    const referenceB = newReference();
    expect((await merchantA.createPayment({ reference: referenceA })).status).toBe(201);
    expect((await merchantB.createPayment({ reference: referenceB })).status).toBe(201);
    await subscriberA.waitFor(1);
    await subscriberB.waitFor(1);
    expect(summary(subscriberA)).toEqual([[referenceA, 'CREATED']]);
    expect(summary(subscriberB)).toEqual([[referenceB, 'CREATED']]);
  });

  test('accepts the credential names in any case', async () => {
    const params = Object.fromEntries(
      Object.entries(await connectionParamsOf(merchantA)).map(([name, value]) => [name.toLowerCase(), value]),
    );
    const subscriber = await subscribed(t, merchantA, {}, params);
    const reference = newReference();
    await merchantA.createPayment({ reference });
    await subscriber.waitFor(1);
    expect(summary(subscriber)).toEqual([[reference, 'CREATED']]);
  });

  test("identical subscriptions share one execution per event; a different one gets its own, and both read the event's payment once", async () => {
    const same: Subscriber<Notification>[] = [];
    // One at a time: `subscribed` waits for the server's count to grow, which one registration satisfies for all.
    for (let i = 0; i < 20; i++) same.push(await subscribed(t, merchantA));
    const narrowed = await subscribed(t, merchantA, { names: ['CREATED'] });
    const reference = newReference();
    const before = t.queries.length;
    expect((await merchantA.createPayment({ reference })).status).toBe(201);
    await Promise.all([...same, narrowed].map((s) => s.waitFor(1)));
    // 21 subscribers, two distinct operations of one caller: one read of the event's payment (by id) for both.
    const paymentReads = t.queries
      .slice(before)
      .filter((sql) => /from "?payment"? .*where .*"?id"? (=|in) /i.test(sql) && !/insert/i.test(sql));
    expect(paymentReads).toHaveLength(1);
    for (const s of [...same, narrowed]) expect(summary(s)).toEqual([[reference, 'CREATED']]);
    expect(new Set(same.map((s) => JSON.stringify(s.results[0]!.data))).size).toBe(1);
  });

  test('events committed back to back arrive in commit order, each with its own payment, while their executions overlap', async () => {
    const subscribers = [await subscribed(t, merchantA), await subscribed(t, merchantA)];
    const references = Array.from({ length: 6 }, () => newReference());
    // Not waiting for a notification between creates: the bus reads several at once and their executions run together.
    for (const reference of references) expect((await merchantA.createPayment({ reference })).status).toBe(201);
    for (const subscriber of subscribers) {
      const notifications = (await subscriber.waitFor(references.length)).map((r) => r.data.paymentEvents);
      expect(notifications.map((n) => n.event.reference)).toEqual(references);
      expect(notifications.map((n) => n.payment.reference)).toEqual(references);
    }
  });

  test('unsubscribing releases the subscription on the server', async () => {
    const before = t.app.services.events.subscriberCount;
    const subscriber = await subscribed(t, merchantA);
    await subscriber.close();
    await eventually(() => t.app.services.events.subscriberCount === before, 'the subscription to be released');
  });
});

describe('connection_init authentication', () => {
  test('valid credentials are acknowledged', async () => {
    expect(await connectOnce(t.baseUrl, await connectionParamsOf(merchantA))).toEqual({ acknowledged: true, closeCode: 1000 });
  });

  test.each([
    ['a bad token', async () => ({ ...(await connectionParamsOf(merchantA)), Authorization: 'Bearer not-a-token' })],
    ['no token', async () => ({ 'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey, 'Merchant-Serial-Number': MERCHANT_A.msn })],
    [
      'another client’s subscription key',
      async () => ({ ...(await connectionParamsOf(merchantA)), 'Ocp-Apim-Subscription-Key': MERCHANT_B.subscriptionKey }),
    ],
    ["another merchant's sales unit", async () => ({ ...(await connectionParamsOf(merchantA)), 'Merchant-Serial-Number': MERCHANT_B.msn })],
    ['a malformed sales unit', async () => ({ ...(await connectionParamsOf(merchantA)), 'Merchant-Serial-Number': 'abc' })],
    ['no payload', async () => ({})],
  ])('%s closes the socket with 4403 before any ack', async (_case, params) => {
    expect(await connectOnce(t.baseUrl, await params())).toEqual({ acknowledged: false, closeCode: 4403 });
  });

  test('without a sales unit the socket is acknowledged; a subscription that needs one is refused naming the MSN', async () => {
    const params = { ...(await connectionParamsOf(merchantA)) };
    delete params['Merchant-Serial-Number'];
    expect(await connectOnce(t.baseUrl, params)).toEqual({ acknowledged: true, closeCode: 1000 });
    const subscriber = new Subscriber(t.baseUrl, params).subscribe('subscription { paymentEvents { event { reference } } }');
    try {
      await eventually(() => subscriber.failure !== undefined || subscriber.results.length > 0, 'the refusal');
      expect(JSON.stringify(subscriber.failure ?? subscriber.results)).toContain('Merchant-Serial-Number');
    } finally {
      await subscriber.close();
    }
  });

  test('the socket closes with 4403 when the access token it was opened with expires', async () => {
    const shortLived = await startTestApp({ tokenLifetimeSeconds: 2 });
    try {
      const merchant = new MerchantClient(shortLived.baseUrl, MERCHANT_A);
      const socket = new WebSocket(graphqlWsUrl(shortLived.baseUrl), 'graphql-transport-ws');
      const messages: string[] = [];
      socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()).type));
      const closed = new Promise<number>((resolve) => socket.once('close', resolve));
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(JSON.stringify({ type: 'connection_init', payload: await connectionParamsOf(merchant) }));
      expect(await closed).toBe(4403);
      expect(messages).toEqual(['connection_ack']);
    } finally {
      await shortLived.close();
    }
  });
});

describe('the socket', () => {
  test('serves subscriptions only: a query is answered with an error pointing to POST /graphql', async () => {
    const subscriber = new Subscriber(t.baseUrl, await connectionParamsOf(merchantA)).subscribe(
      '{ payments(first: 1) { edges { cursor } } }',
    );
    open.push(subscriber);
    await eventually(() => subscriber.failure !== undefined, 'the error');
    expect(JSON.stringify(subscriber.failure)).toContain('POST /graphql');
  });

  test('pings idle subscribers at the configured keep-alive interval', async () => {
    // An app of its own, pinging every second. graphql-ws gives the pong the interval to arrive and cuts the socket
    // otherwise; the client answering here runs in the service's process, and with both passes side by side (five
    // workers on two cores) it answered a 250 ms ping too late, the socket was cut and no third ping came.
    const pinging = await startTestApp({ subscriptionKeepAliveMs: 1_000 });
    try {
      const socket = new WebSocket(graphqlWsUrl(pinging.baseUrl), 'graphql-transport-ws');
      let pings = 0;
      socket.on('ping', () => pings++);
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(
        JSON.stringify({ type: 'connection_init', payload: await connectionParamsOf(new MerchantClient(pinging.baseUrl, MERCHANT_A)) }),
      );
      let closed = false;
      socket.on('close', () => (closed = true));
      await eventually(() => pings >= 3 || closed, 'three pings (a second apart)');
      expect({ pings: Math.min(pings, 3), closed }).toEqual({ pings: 3, closed: false });
      // The ws client answers pings itself, so the server keeps the socket open.
      expect(socket.readyState).toBe(WebSocket.OPEN);
      socket.close();
    } finally {
      await pinging.close();
    }
  });
});

describe('latency', () => {
  test('from the capture response to the subscriber, per database', async () => {
    const latencies = await measureCaptureLatency(t, merchantA, 20);
    console.log(
      `subscription latency on ${onPostgres ? 'PostgreSQL' : 'PGlite'}: median ${median(latencies).toFixed(2)} ms over ${latencies.length} captures (min ${Math.min(...latencies).toFixed(2)}, max ${Math.max(...latencies).toFixed(2)})`,
    );
    expect(latencies).toHaveLength(20);
  });
});

/**
 * Captures through `merchant` (on whichever instance its base URL names) and measures, at a subscriber on
 * `reader`, the time from the capture's HTTP response to the notification's arrival (negative when the
 * notification beats the response). Each must arrive within 5 s.
 */
async function measureCaptureLatency(reader: TestApp, merchant: MerchantClient, captures: number): Promise<number[]> {
  const reference = await merchant.authorizedPayment(captures * 100);
  const subscriber = await subscribed(reader, merchant, { reference, names: ['CAPTURED'] });
  const latencies: number[] = [];
  for (let i = 0; i < captures; i++) {
    const response = await merchant.modify(reference, 'capture', 100);
    const respondedAt = performance.now();
    expect(response.status).toBe(200);
    const arrived = (await subscriber.waitFor(i + 1))[i]!;
    expect(arrived.data.paymentEvents.event).toMatchObject({ reference, name: 'CAPTURED', amount: { value: 100 } });
    latencies.push(arrived.at - respondedAt);
  }
  return latencies;
}

const describeOnPostgres = onPostgres ? describe : describe.skip;

describeOnPostgres('two instances on one PostgreSQL database', () => {
  let second: TestApp;
  let merchantOnFirst: MerchantClient;

  beforeAll(async () => {
    second = await startTestApp({ databaseUrl: t.app.services.config.databaseUrl });
    merchantOnFirst = new MerchantClient(t.baseUrl, MERCHANT_A);
  });
  afterAll(() => second.close());

  test('a capture through instance A reaches a subscriber connected to instance B', async () => {
    const latencies = await measureCaptureLatency(second, merchantOnFirst, 20);
    console.log(
      `cross-instance subscription latency (outbox read, woken by the writer's announcement after its commit): median ${median(latencies).toFixed(2)} ms over ${latencies.length} captures (max ${Math.max(...latencies).toFixed(2)})`,
    );
    // Each capture's notification had to arrive (measureCaptureLatency's wait fails otherwise); how fast is logged only.
    expect(latencies).toHaveLength(20);
  });

  test('a dropped LISTEN connection is re-established and the events committed meanwhile are caught up', async () => {
    const subscriber = await subscribed(second, merchantOnFirst);
    const admin = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
    await admin.connect();
    try {
      const database = new URL(t.app.services.config.databaseUrl!).pathname.slice(1);
      // Both instances listen on this database; dropping both connections leaves nobody hearing the next commit.
      const listeners = `from pg_stat_activity where application_name = $1 and datname = $2`;
      const killed = await admin.query(`select pg_terminate_backend(pid) ${listeners}`, [LISTENER_APPLICATION_NAME, database]);
      expect(killed.rowCount).toBe(2);
      const reference = newReference();
      expect((await merchantOnFirst.createPayment({ reference })).status).toBe(201);
      await subscriber.waitFor(1);
      expect(summary(subscriber)).toEqual([[reference, 'CREATED']]);
      // Once both have reconnected, live notifications flow again.
      for (const deadline = Date.now() + CONDITION_DEADLINE_MS; ;) {
        const { rows } = await admin.query(`select count(*)::int as n ${listeners}`, [LISTENER_APPLICATION_NAME, database]);
        if (rows[0].n === 2) break;
        if (Date.now() > deadline) throw new Error('the listeners did not reconnect');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const later = newReference();
      await merchantOnFirst.createPayment({ reference: later });
      await subscriber.waitFor(2);
      expect(summary(subscriber)).toEqual([
        [reference, 'CREATED'],
        [later, 'CREATED'],
      ]);
    } finally {
      await admin.end();
    }
  });

  test('an instance that runs no jobs announces its commit from its listening connection, after the commit, and the other instance delivers it', async () => {
    // No dispatcher on the writer: the announcement cannot come from a dispatched batch.
    const writer = await startTestApp({ databaseUrl: t.app.services.config.databaseUrl, runJobs: false });
    const admin = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
    await admin.connect();
    const heard: { processId: number }[] = [];
    admin.on('notification', (message) => heard.push({ processId: message.processId }));
    try {
      await admin.query('listen domain_event');
      const subscriber = await subscribed(second, merchantOnFirst);
      const reference = newReference();
      expect((await new MerchantClient(writer.baseUrl, MERCHANT_A).createPayment({ reference })).status).toBe(201);
      await subscriber.waitFor(1);
      expect(summary(subscriber)).toEqual([[reference, 'CREATED']]);
      await eventually(() => heard.length > 0, 'the announcement');
      // Sent by an instance's listening connection (outside the request pool), never by the writing transaction.
      const database = new URL(t.app.services.config.databaseUrl!).pathname.slice(1);
      const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1 and datname = $2', [
        LISTENER_APPLICATION_NAME,
        database,
      ]);
      const listeners = new Set(rows.map((row) => row.pid));
      for (const { processId } of heard) expect(listeners.has(processId)).toBe(true);
    } finally {
      await admin.end();
      await writer.close();
    }
  });
});
