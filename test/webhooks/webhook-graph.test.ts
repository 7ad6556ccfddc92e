import { randomUUID } from 'node:crypto';
import { dispatchOutbox } from '../../src/platform/events/outbox-dispatcher.job.js';
import { toGlobalId } from '../../src/platform/graph/relay.js';
import { MERCHANT_B, MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Attempts recorded for each delivery, so the attempts pages have something to page through. */
const ATTEMPTS_EACH = 3;

let t: TestApp;
let owner: MerchantClient;
let intruder: MerchantClient;
let webhookId: string;
/** The owner's deliveries, newest first, as global ids. */
let deliveryIds: string[];

beforeAll(async () => {
  // No background jobs: the test dispatches the outbox itself and writes the attempts, so nothing is posted and the
  // statement log holds only the requests' own statements (the API quality flush, which every instance runs, too).
  t = await startTestApp({ runJobs: false, flushIntervalMs: 3_600_000 });
  owner = new MerchantClient(t.baseUrl);
  intruder = new MerchantClient(t.baseUrl, MERCHANT_B);
  const registered = await owner.request('POST', '/webhooks/v1/webhooks', {
    url: 'http://127.0.0.1:9/hook',
    events: ['epayments.payment.created.v1'],
  });
  expect(registered.status).toBe(201);
  webhookId = registered.body.id;
  for (let i = 0; i < 12; i++) expect((await owner.createPayment({ reference: newReference() })).status).toBe(201);
  expect(await dispatchOutbox(t.app.services)).toBe(12);
  const em = t.app.services.orm.em.fork().getConnection();
  const rows: { id: unknown }[] = await em.execute('select id from delivery where webhook_id = ? order by id desc', [webhookId]);
  for (const row of rows) {
    for (let n = 0; n < ATTEMPTS_EACH; n++) {
      await em.execute(
        `insert into delivery_attempt (delivery_id, attempted_at, status_code, duration_ms, error) values (?, now(), ?, ?, null)`,
        [row.id, 500 + n, n],
      );
    }
  }
  deliveryIds = rows.map((row) => toGlobalId('WebhookDelivery', Number(row.id)));
});
afterAll(() => t.close());

/**
 * Page sizes are literals: as variables, the cost limit counts each as 100, and 100 deliveries with 100 attempts
 * each is past it (which is the point of paging attempts).
 */
const page = (first: number, attempts: number) => `query($after: String) {
  webhooks {
    id
    deliveries(first: ${first}, after: $after) {
      edges { cursor node { id reference status attempts(first: ${attempts}) { edges { node { statusCode } } pageInfo { hasNextPage } } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

async function statementsFor(run: () => Promise<unknown>): Promise<string[]> {
  const before = t.queries.length;
  await run();
  return t.queries.slice(before);
}

describe('Webhook.deliveries', () => {
  test('pages newest first by keyset cursor, the same deliveries as Query.webhookDeliveries', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res = await owner.graphql(page(5, 1), { after });
      expect(res.body.errors).toBeUndefined();
      const [webhook] = res.body.data.webhooks;
      expect(webhook.id).toBe(webhookId);
      seen.push(...webhook.deliveries.edges.map((e: any) => e.node.id));
      if (!webhook.deliveries.pageInfo.hasNextPage) break;
      after = webhook.deliveries.pageInfo.endCursor;
    }
    expect(seen).toEqual(deliveryIds);
    const flat = await owner.graphql('query($id: ID!) { webhookDeliveries(webhookId: $id, first: 100) { edges { node { id } } } }', {
      id: webhookId,
    });
    expect(flat.body.data.webhookDeliveries.edges.map((e: any) => e.node.id)).toEqual(deliveryIds);
  });

  test('page sizes given as variables count as 100 each in the cost limit, so deliveries × attempts is bounded', async () => {
    const res = await owner.graphql(
      `query($first: Int, $attempts: Int) { webhooks { deliveries(first: $first) { edges { node { attempts(first: $attempts) { edges { node { statusCode durationMs error attemptedAt } } } } } } } }`,
      { first: 1, attempts: 1 },
    );
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED' });
    expect(res.body.errors[0].message).toMatch(/^Query cost \d+ exceeds the limit/);
  });

  test('first above 100 is refused, for deliveries and for attempts', async () => {
    for (const [first, attempts] of [
      [101, 1],
      [1, 101],
    ]) {
      const res = await owner.graphql(page(first!, attempts!));
      expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
    }
  });

  test('a page of deliveries with their attempts costs the same number of statements for 1, 5 and 12 deliveries', async () => {
    const counts: number[] = [];
    for (const first of [1, 5, 12]) {
      const statements = await statementsFor(async () => {
        const res = await owner.graphql(page(first, 2));
        expect(res.body.errors).toBeUndefined();
        const edges = res.body.data.webhooks[0].deliveries.edges;
        expect(edges).toHaveLength(first);
        for (const edge of edges) {
          expect(edge.node.attempts.edges.map((a: any) => a.node.statusCode)).toEqual([500, 501]);
          expect(edge.node.attempts.pageInfo.hasNextPage).toBe(true);
        }
      });
      counts.push(statements.length);
    }
    // Registrations, one batch of delivery pages, one batch of attempt pages (and the sales unit's owner at most once).
    expect(new Set(counts).size).toBe(1);
    expect(counts[0]).toBeLessThanOrEqual(4);
  });
});

describe('WebhookDelivery', () => {
  const NODE = `query($id: ID!, $after: String) {
    node(id: $id) {
      __typename id
      ... on WebhookDelivery { reference status attempts(first: 2, after: $after) { edges { cursor node { state statusCode } } pageInfo { hasNextPage endCursor } } }
    }
  }`;

  test('resolves through node(id:) for its own sales unit, with its attempts a page at a time', async () => {
    const id = deliveryIds[0]!;
    const first = await owner.graphql(NODE, { id });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.node).toMatchObject({ __typename: 'WebhookDelivery', id, status: 'PENDING' });
    expect(first.body.data.node.attempts.edges.map((e: any) => [e.node.state, e.node.statusCode])).toEqual([
      ['COMPLETED', 500],
      ['COMPLETED', 501],
    ]);
    expect(first.body.data.node.attempts.pageInfo.hasNextPage).toBe(true);
    const rest = await owner.graphql(NODE, { id, after: first.body.data.node.attempts.pageInfo.endCursor });
    expect(rest.body.data.node.attempts.edges.map((e: any) => e.node.statusCode)).toEqual([502]);
    expect(rest.body.data.node.attempts.pageInfo.hasNextPage).toBe(false);
  });

  test("another merchant's delivery is null, exactly like a missing one", async () => {
    const foreign = await intruder.graphql(NODE, { id: deliveryIds[0] });
    const missing = await intruder.graphql(NODE, { id: toGlobalId('WebhookDelivery', 987654321) });
    expect(foreign.body).toEqual({ data: { node: null } });
    expect(missing.body).toEqual({ data: { node: null } });
    // Nor does the intruder see the registration's deliveries through its own registrations.
    const own = await intruder.graphql(page(100, 1));
    expect(own.body.data.webhooks).toEqual([]);
    const byWebhook = await intruder.graphql('query($id: ID!) { webhookDeliveries(webhookId: $id) { edges { node { id } } } }', {
      id: webhookId,
    });
    expect(byWebhook.body.data.webhookDeliveries).toBeNull();
  });

  test('a malformed or foreign-typed id is null', async () => {
    for (const id of [toGlobalId('WebhookDelivery', 'x'), toGlobalId('WebhookDelivery', randomUUID()), 'not-an-id']) {
      const res = await owner.graphql(NODE, { id });
      expect(res.body).toEqual({ data: { node: null } });
    }
  });
});
