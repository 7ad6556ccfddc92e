import { loadConfig } from '../../src/config.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { dispatchOutbox } from '../../src/platform/events/outbox-dispatcher.job.js';
import { MERCHANT_B, MerchantClient, newReference, type TestMerchant } from '../support/merchant-client.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** issue 37 item 5: payments that need attention, through the graph and the Prometheus gauge. */
const ATTENTION = `query Attention($first: Int, $after: String) {
  paymentsNeedingAttention(first: $first, after: $after) {
    edges { cursor node {
      payment { reference state }
      causes { reason since delivery { id eventType status attempts { edges { node { outcome statusCode } } } } }
    } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const AUTHORIZED = 'epayments.payment.authorized.v1';
const CAPTURED = 'epayments.payment.captured.v1';
const MSN_A = '123456';
const FIFTEEN_MINUTES_S = 15 * 60;

async function attention(client: MerchantClient, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await client.graphql(ATTENTION, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.paymentsNeedingAttention;
}

/** Each payment of the first page, as the panel shows it: reference, state and its reasons. */
async function reasons(client: MerchantClient): Promise<{ reference: string; state: string; reasons: string[] }[]> {
  const page = await attention(client, { first: 100 });
  return page.edges.map((e: any) => ({
    reference: e.node.payment.reference,
    state: e.node.payment.state,
    reasons: e.node.causes.map((c: any) => c.reason),
  }));
}

/** The partner's client acting for a sales unit (TEST-ENVIRONMENT.md). */
const partnerFor = (msn: string): TestMerchant => ({
  msn,
  clientId: 'test-client-partner',
  clientSecret: 'test-secret-partner',
  subscriptionKey: 'test-key-partner',
});

async function scrape(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** The gauge's value per reason, as Prometheus reads it. */
async function gauge(port: number): Promise<Record<string, number>> {
  const values: Record<string, number> = {};
  for (const line of (await scrape(port)).split('\n')) {
    const match = /^paygraph_payments_needing_attention\{reason="([a-z_]+)"\} (\S+)$/.exec(line);
    if (match) values[match[1]!] = Number(match[2]);
  }
  return values;
}

const NONE = { authorized_webhook_not_delivered: 0, capture_webhook_not_delivered: 0, expiry_overdue: 0 };

test('the thresholds are 15, 15 minutes and 1 minute unless configured; a bad value is refused naming its variable', () => {
  expect(loadConfig({}).attention).toEqual({ authorizedWebhookMs: 900_000, captureWebhookMs: 900_000, expiryOverdueMs: 60_000 });
  expect(
    loadConfig({
      PAYGRAPH_ATTENTION_AUTHORIZED_WEBHOOK_MS: '60000',
      PAYGRAPH_ATTENTION_CAPTURE_WEBHOOK_MS: '120000',
      PAYGRAPH_ATTENTION_EXPIRY_OVERDUE_MS: '5000',
    }).attention,
  ).toEqual({ authorizedWebhookMs: 60_000, captureWebhookMs: 120_000, expiryOverdueMs: 5_000 });
  for (const name of [
    'PAYGRAPH_ATTENTION_AUTHORIZED_WEBHOOK_MS',
    'PAYGRAPH_ATTENTION_CAPTURE_WEBHOOK_MS',
    'PAYGRAPH_ATTENTION_EXPIRY_OVERDUE_MS',
  ]) {
    for (const value of ['0', '-5', '15m', '1.5']) expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  }
});

describe('after a receiver fails', () => {
  let t: TestApp;
  let merchant: MerchantClient;
  let metrics: { port: number; close(): Promise<void> };
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp();
    merchant = new MerchantClient(t.baseUrl);
    metrics = await t.app.metrics.serve(0);
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await metrics.close();
    await receiver.close();
    await t.close();
  });

  test('an authorization and a capture whose webhooks fail show after 15 minutes of the unit’s clock, and leave once redelivered', async () => {
    const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
      url: receiver.url('/orders'),
      events: [AUTHORIZED, CAPTURED],
    });
    expect(registered.status).toBe(201);
    const unauthorized = newReference('attention-authorized');
    const uncaptured = newReference('attention-captured');
    let healthy = false;
    // The shop's endpoint fails one payment's authorization and the other's capture until it is fixed.
    receiver.route('/orders', registered.body.secret, (body) =>
      !healthy && (body.reference === unauthorized || (body.reference === uncaptured && body.name === 'CAPTURED')) ? 503 : 200,
    );
    await merchant.authorizedPayment(1_000, { reference: unauthorized });
    // A millisecond apart, so "newest first" has one answer (the test's clock stands still otherwise).
    t.clock.advance(1);
    await merchant.authorizedPayment(1_000, { reference: uncaptured });
    expect((await merchant.modify(uncaptured, 'capture', 400)).status).toBe(200);
    await receiver.waitFor(
      (r) =>
        r.some((w) => w.body.reference === unauthorized && w.status === 503) &&
        r.some((w) => w.body.reference === uncaptured && w.body.name === 'CAPTURED' && w.status === 503) &&
        r.some((w) => w.body.reference === uncaptured && w.body.name === 'AUTHORIZED' && w.status === 200),
      'one failed authorization, one failed capture',
    );

    // Failing, but not for long: a receiver gets its retries before anyone is asked to look.
    expect(await reasons(merchant)).toEqual([]);
    expect(await gauge(metrics.port)).toEqual(NONE);

    const moved = await merchant.graphql(
      `mutation { advanceTestClock(input: { seconds: ${FIFTEEN_MINUTES_S + 1} }) { testClock { now } userErrors { code } } }`,
    );
    expect(moved.body.data.advanceTestClock.userErrors).toEqual([]);

    // Newest first, each with its reason and the delivery to redeliver.
    expect(await reasons(merchant)).toEqual([
      { reference: uncaptured, state: 'AUTHORIZED', reasons: ['CAPTURE_WEBHOOK_NOT_DELIVERED'] },
      { reference: unauthorized, state: 'AUTHORIZED', reasons: ['AUTHORIZED_WEBHOOK_NOT_DELIVERED'] },
    ]);
    const page = await attention(merchant);
    const causes = page.edges.map((e: any) => e.node.causes[0]);
    expect(causes.map((c: any) => ({ ...c.delivery, id: undefined }))).toEqual([
      { id: undefined, eventType: CAPTURED, status: 'PENDING', attempts: { edges: [{ node: { outcome: 'FAILED', statusCode: 503 } }] } },
      { id: undefined, eventType: AUTHORIZED, status: 'PENDING', attempts: { edges: [{ node: { outcome: 'FAILED', statusCode: 503 } }] } },
    ]);
    // `since` is the event's time on the unit's clock, which now reads more than 15 minutes later.
    const unitNow = Date.parse(moved.body.data.advanceTestClock.testClock.now);
    for (const cause of causes) expect(unitNow - Date.parse(cause.since)).toBeGreaterThan(FIFTEEN_MINUTES_S * 1000);
    expect(await gauge(metrics.port)).toEqual({ ...NONE, authorized_webhook_not_delivered: 1, capture_webhook_not_delivered: 1 });

    // A page at a time, by keyset.
    const first = await attention(merchant, { first: 1 });
    expect(first.edges.map((e: any) => e.node.payment.reference)).toEqual([uncaptured]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await attention(merchant, { first: 1, after: first.pageInfo.endCursor });
    expect(second.edges.map((e: any) => e.node.payment.reference)).toEqual([unauthorized]);
    expect(second.pageInfo.hasNextPage).toBe(false);

    // Another tenant sees none of it: merchant B, and the partner acting for B.
    expect(await reasons(new MerchantClient(t.baseUrl, MERCHANT_B))).toEqual([]);
    expect(await reasons(new MerchantClient(t.baseUrl, partnerFor(MERCHANT_B.msn)))).toEqual([]);
    // The partner acting for A sees A's list.
    expect((await reasons(new MerchantClient(t.baseUrl, partnerFor(MSN_A)))).map((p) => p.reference)).toEqual([uncaptured, unauthorized]);

    // The endpoint is fixed and the merchant redelivers each from the list.
    healthy = true;
    for (const cause of causes) {
      const res = await merchant.graphql(
        'mutation($id: ID!) { redeliverWebhookDelivery(input: { deliveryId: $id }) { delivery { status } userErrors { code } } }',
        { id: cause.delivery.id },
      );
      expect(res.body.data.redeliverWebhookDelivery).toEqual({ delivery: { status: 'PENDING' }, userErrors: [] });
    }
    // Due at once, although the unit's test clock is 15 minutes ahead of the platform's clock that times deliveries.
    await receiver.waitFor(
      (r) =>
        r.some((w) => w.body.reference === unauthorized && w.body.name === 'AUTHORIZED' && w.status === 200) &&
        r.some((w) => w.body.reference === uncaptured && w.body.name === 'CAPTURED' && w.status === 200),
      'both redelivered',
    );
    await until(async () => (await reasons(merchant)).length === 0, 'the list to empty');
    expect(await gauge(metrics.port)).toEqual(NONE);
  });
});

describe('a payment past its expiry that nobody expired', () => {
  let t: TestApp;
  let second: TestApp | undefined;
  let merchant: MerchantClient;
  let metrics: { port: number; close(): Promise<void> };
  let secondMetrics: { port: number; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    // No instance runs the jobs: the expiry job falls behind for good, and each statement below is the request's own.
    t = await startTestApp({ runJobs: false, flushIntervalMs: 3_600_000 });
    merchant = new MerchantClient(t.baseUrl);
    metrics = await t.app.metrics.serve(0);
    if (onPostgres) {
      second = await startTestApp({ runJobs: false, flushIntervalMs: 3_600_000, databaseUrl: t.app.services.config.databaseUrl });
      secondMetrics = await second.app.metrics.serve(0);
    }
  });
  afterAll(async () => {
    await secondMetrics?.close();
    await second?.close();
    await metrics.close();
    await t.close();
  });

  /** Moves sales unit A's test clock without running the jobs (the graph's advance runs them, and would expire). */
  const advanceUnitClock = (ms: number) => t.app.services.testClocks.advance(forkEm(t.app.services.orm), MSN_A, ms);

  test('shows, as EXPIRED with EXPIRY_OVERDUE, past the grace on the unit’s clock, until the expiry job runs', async () => {
    const references = [newReference('overdue'), newReference('overdue'), newReference('overdue')];
    for (const reference of references) expect((await merchant.createPayment({ reference })).status).toBe(201);
    const elsewhere = new MerchantClient(t.baseUrl, MERCHANT_B);
    expect((await elsewhere.createPayment()).status).toBe(201);

    // Past the 10-minute expiry but within the grace: the job may simply not have come round yet.
    await advanceUnitClock(10 * 60 * 1000 + 30 * 1000);
    expect(await reasons(merchant)).toEqual([]);
    expect(await gauge(metrics.port)).toEqual(NONE);

    await advanceUnitClock(60 * 1000);
    // Created at one instant of the test's clock, they come newest first by (createdAt, id): compared as a set.
    const byReference = (a: { reference: string }, b: { reference: string }) => a.reference.localeCompare(b.reference);
    expect((await reasons(merchant)).sort(byReference)).toEqual(
      references.map((reference) => ({ reference, state: 'EXPIRED', reasons: ['EXPIRY_OVERDUE'] })).sort(byReference),
    );
    const page = await attention(merchant);
    const first = page.edges.find((e: any) => e.node.payment.reference === references[0]);
    // Since the payment's expiry.
    expect(first.node.causes).toEqual([{ reason: 'EXPIRY_OVERDUE', since: await expiresAt(references[0]!), delivery: null }]);
    // B's clock did not move: its payment is live, and B's list is empty.
    expect(await reasons(elsewhere)).toEqual([]);
    const counted = { ...NONE, expiry_overdue: 3 };
    expect(await gauge(metrics.port)).toEqual(counted);
    // Read from the database, the gauge is the same on every instance (aggregate it with max).
    if (secondMetrics) expect(await gauge(secondMetrics.port)).toEqual(counted);

    await t.app.services.runJobsNow!();
    expect(await reasons(merchant)).toEqual([]);
    expect(await gauge(metrics.port)).toEqual(NONE);
  });

  test('a payment held on purpose by the 201 trigger shows only as any other: EXPIRY_OVERDUE once past its own expiresAt unexpired', async () => {
    // README "Payments held on purpose": the trigger keeps the payment CREATED with no new event and leaves its expiresAt.
    const TRIGGER_201 = { currency: 'NOK', value: 201 };
    const held = newReference('held-201');
    const longLiving = newReference('held-201-long');
    expect((await merchant.createPayment({ reference: held, amount: TRIGGER_201 })).status).toBe(201);
    const expiresAt = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    // A long-living payment (QR, with a receipt) whose own expiresAt is a day ahead.
    const receipt = {
      orderLines: [{ name: 'Socks', id: 'line-1', totalAmount: 201, totalAmountExcludingTax: 201, totalTaxAmount: 0, taxPercentage: 0 }],
      bottomLine: { currency: 'NOK' },
    };
    const longLived = await merchant.createPayment({
      reference: longLiving,
      amount: TRIGGER_201,
      userFlow: 'QR',
      returnUrl: undefined,
      receipt,
      expiresAt,
    });
    expect(longLived.status).toBe(201);
    for (const reference of [held, longLiving]) {
      expect((await merchant.forceApprove(reference)).body.extraDetails).toContainEqual({ name: 'failure', reason: 'UNKNOWN_RESULT' });
    }
    // Held, not forgotten: nothing to look at while it lives, nor past its expiry within the grace.
    expect(await reasons(merchant)).toEqual([]);
    await advanceUnitClock(10 * 60 * 1000 + 30 * 1000);
    expect(await reasons(merchant)).toEqual([]);
    // Past the grace and not expired by the job: shown, not exempted by its trigger; the long-living one is not due.
    await advanceUnitClock(60 * 1000);
    expect(await reasons(merchant)).toEqual([{ reference: held, state: 'EXPIRED', reasons: ['EXPIRY_OVERDUE'] }]);
    expect(await gauge(metrics.port)).toEqual({ ...NONE, expiry_overdue: 1 });
    await t.app.services.runJobsNow!();
    expect(await reasons(merchant)).toEqual([]);
    const states = await merchant.graphql(
      'query($a: String!, $b: String!) { a: payment(reference: $a) { state } b: payment(reference: $b) { state } }',
      {
        a: held,
        b: longLiving,
      },
    );
    expect(states.body.data).toEqual({ a: { state: 'EXPIRED' }, b: { state: 'CREATED' } });
  });

  test('a page costs the same statements for 1, 5 and 10 payments, with their causes and deliveries', async () => {
    const registered = await merchant.request('POST', '/webhooks/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: [AUTHORIZED] });
    expect(registered.status).toBe(201);
    for (let i = 0; i < 6; i++) {
      await merchant.authorizedPayment(1_000);
      expect((await merchant.createPayment()).status).toBe(201);
    }
    // The outbox fans out to the registration; no instance delivers, so every authorization's webhook waits.
    await dispatchOutbox(t.app.services);
    await advanceUnitClock(20 * 60 * 1000);
    await merchant.graphql('{ __typename }');
    const counts: number[] = [];
    const query = `query($first: Int) { paymentsNeedingAttention(first: $first) {
      edges { node { payment { reference state } causes { reason since delivery { id eventType status } } } } pageInfo { hasNextPage } } }`;
    for (const first of [1, 5, 10]) {
      const before = t.queries.length;
      const res = await merchant.graphql(query, { first });
      counts.push(t.queries.length - before);
      expect(res.body.errors).toBeUndefined();
      const page = res.body.data.paymentsNeedingAttention;
      expect(page.edges).toHaveLength(first);
      expect(page.pageInfo.hasNextPage).toBe(true);
      for (const edge of page.edges) {
        const [cause] = edge.node.causes;
        expect(cause.reason === 'EXPIRY_OVERDUE' ? cause.delivery : cause.delivery.status).toBe(
          cause.reason === 'EXPIRY_OVERDUE' ? null : 'PENDING',
        );
      }
    }
    // The causes with their deliveries in one statement, the page's payments in one more.
    expect(counts).toEqual([2, 2, 2]);
  });

  async function expiresAt(reference: string): Promise<string> {
    const res = await merchant.graphql('query($r: String!) { payment(reference: $r) { expiresAt } }', { r: reference });
    return res.body.data.payment.expiresAt;
  }
});

async function until(holds: () => Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + 15_000; !(await holds()); await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}
