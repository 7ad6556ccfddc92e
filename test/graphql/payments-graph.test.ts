import { randomUUID } from 'node:crypto';
import { toGlobalId } from '../../src/platform/graph/relay.js';
import { MERCHANT_B, MerchantClient, newReference, type HttpResult } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let merchant: MerchantClient;
let other: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  other = new MerchantClient(t.baseUrl, MERCHANT_B);
});
afterAll(() => t.close());

const PAYMENT_FIELDS = `
  id reference pspReference state userFlow redirectUrl paymentDescription createdAt expiresAt
  amount { value currency }
  aggregate { authorizedAmount { value } capturedAmount { value } cancelledAmount { value } refundedAmount { value } }
  allowedActions { capture { value } refund { value } cancel }
  paymentMethod { type }
  profile { sub }
  metadata { key value }`;

const USER_ERRORS = 'userErrors { code field message }';

const CREATE = `mutation($input: CreatePaymentInput!) {
  createPayment(input: $input) { payment { ${PAYMENT_FIELDS} } redirectUrl ${USER_ERRORS} }
}`;
const CAPTURE = `mutation($input: CapturePaymentInput!) { capturePayment(input: $input) { payment { ${PAYMENT_FIELDS} } ${USER_ERRORS} } }`;
const REFUND = `mutation($input: RefundPaymentInput!) { refundPayment(input: $input) { payment { ${PAYMENT_FIELDS} } ${USER_ERRORS} } }`;
const CANCEL = `mutation($input: CancelPaymentInput!) { cancelPayment(input: $input) { payment { ${PAYMENT_FIELDS} } ${USER_ERRORS} } }`;
const APPROVE = `mutation($input: ApproveTestPaymentInput!) { approveTestPayment(input: $input) { payment { ${PAYMENT_FIELDS} } ${USER_ERRORS} } }`;
const PAYMENT = `query($reference: String!) {
  payment(reference: $reference) {
    ${PAYMENT_FIELDS}
    events { edges { cursor node { id reference pspReference name amount { value currency } timestamp idempotencyKey success } } pageInfo { hasNextPage } }
  }
}`;
const PAYMENTS = `query($first: Int, $after: String, $filter: PaymentFilter) {
  payments(first: $first, after: $after, filter: $filter) {
    edges { cursor node { id reference state createdAt } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;
const NODE = `query($id: ID!) {
  node(id: $id) {
    __typename id
    ... on Payment { reference state }
    ... on PaymentEvent { name reference amount { value } }
  }
}`;

const money = (value: number) => ({ value });
const nok = (value: number) => ({ value, currency: 'NOK' });

function createInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    idempotencyKey: randomUUID(),
    reference: newReference('gql'),
    amount: nok(10_000),
    paymentMethod: 'WALLET',
    userFlow: 'WEB_REDIRECT',
    returnUrl: 'https://merchant.example/return',
    paymentDescription: 'Two pairs of socks',
    ...overrides,
  };
}

/** Runs an operation that must not fail as a whole, and returns its data. */
async function data(client: MerchantClient, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await client.graphql(query, variables);
  if (res.status !== 200 || res.body.errors) throw new Error(`graph request failed: ${res.status} ${res.text}`);
  return res.body.data;
}

async function createViaGraph(overrides: Record<string, unknown> = {}, client = merchant): Promise<any> {
  const payload = (await data(client, CREATE, { input: createInput(overrides) })).createPayment;
  expect(payload.userErrors).toEqual([]);
  return payload.payment;
}

async function approve(reference: string): Promise<any> {
  const payload = (await data(merchant, APPROVE, { input: { reference, customer: { phoneNumber: '4791234567' } } })).approveTestPayment;
  expect(payload.userErrors).toEqual([]);
  return payload.payment;
}

async function capturedEvents(reference: string): Promise<unknown[]> {
  return (await merchant.events(reference)).body.filter((e: { name: string }) => e.name === 'CAPTURED');
}

/** Every payment of merchant A the connection shows, one page of 100. */
async function allReferences(client: MerchantClient): Promise<string[]> {
  const page = (await data(client, PAYMENTS, { first: 100 })).payments;
  expect(page.pageInfo.hasNextPage).toBe(false);
  return page.edges.map((e: any) => e.node.reference);
}

describe('createPayment', () => {
  test('returns the payment, its redirectUrl and no userErrors; REST sees the same payment', async () => {
    const input = createInput({ metadata: [{ key: 'order', value: '42' }] });
    const payload = (await data(merchant, CREATE, { input })).createPayment;
    expect(payload.userErrors).toEqual([]);
    expect(payload.redirectUrl).toMatch(new RegExp(`^${t.baseUrl}/wallet/landing\\?token=[\\w-]+$`));
    expect(payload.payment).toEqual({
      id: expect.any(String),
      reference: input.reference,
      pspReference: expect.stringMatching(/^\d{10}$/),
      state: 'CREATED',
      userFlow: 'WEB_REDIRECT',
      redirectUrl: payload.redirectUrl,
      paymentDescription: 'Two pairs of socks',
      createdAt: t.clock.now().toISOString(),
      expiresAt: new Date(t.clock.now().getTime() + 10 * 60_000).toISOString(),
      amount: nok(10_000),
      aggregate: { authorizedAmount: money(0), capturedAmount: money(0), cancelledAmount: money(0), refundedAmount: money(0) },
      allowedActions: { capture: money(0), refund: money(0), cancel: 'TERMINATE' },
      paymentMethod: { type: 'WALLET' },
      profile: { sub: null },
      metadata: [{ key: 'order', value: '42' }],
    });

    const rest = await merchant.getPayment(input.reference as string);
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({
      state: 'CREATED',
      pspReference: payload.payment.pspReference,
      redirectUrl: payload.redirectUrl,
      metadata: { order: '42' },
    });
    const events = (await merchant.events(input.reference as string)).body;
    expect(events).toEqual([expect.objectContaining({ name: 'CREATED', idempotencyKey: input.idempotencyKey })]);
  });

  test('the same input again returns the same payment, and only one payment exists', async () => {
    const input = createInput();
    const first = (await data(merchant, CREATE, { input })).createPayment;
    const again = (await data(merchant, CREATE, { input })).createPayment;
    expect(first.userErrors).toEqual([]);
    expect(again).toEqual(first);
    expect((await allReferences(merchant)).filter((r) => r === input.reference)).toHaveLength(1);
    expect((await merchant.events(input.reference as string)).body).toHaveLength(1);
  });

  test('the same key with another input is an IDEMPOTENCY_CONFLICT; another key for the reference is REFERENCE_ALREADY_EXISTS', async () => {
    const input = createInput();
    await data(merchant, CREATE, { input });
    const conflict = (await data(merchant, CREATE, { input: { ...input, amount: nok(20_000) } })).createPayment;
    expect(conflict.payment).toBeNull();
    expect(conflict.redirectUrl).toBeNull();
    expect(conflict.userErrors).toEqual([expect.objectContaining({ code: 'IDEMPOTENCY_CONFLICT' })]);
    const duplicate = (await data(merchant, CREATE, { input: { ...input, idempotencyKey: randomUUID() } })).createPayment;
    expect(duplicate.payment).toBeNull();
    expect(duplicate.userErrors).toEqual([expect.objectContaining({ code: 'REFERENCE_ALREADY_EXISTS', field: 'reference' })]);
  });

  test('a body rule refused is a VALIDATION_FAILED userError naming the field', async () => {
    const payload = (await data(merchant, CREATE, { input: createInput({ returnUrl: null }) })).createPayment;
    expect(payload.payment).toBeNull();
    expect(payload.userErrors).toEqual([expect.objectContaining({ code: 'VALIDATION_FAILED', field: 'returnUrl' })]);
  });

  test('QR payments: PNG and target URL formats', async () => {
    const png = await createViaGraph({ userFlow: 'QR', returnUrl: null, qrFormat: { format: 'IMAGE_PNG', size: 300 } });
    expect(png.redirectUrl).toMatch(/\/wallet\/qr\?token=/);
    const image = await fetch(png.redirectUrl);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).readUInt32BE(16)).toBe(300);
    const text = await createViaGraph({ userFlow: 'QR', qrFormat: { format: 'TEXT_TARGETURL' } });
    expect(text.redirectUrl).toMatch(/\/wallet\/landing\?token=/);
  });
});

describe('modifications', () => {
  test('approveTestPayment, capturePayment, refundPayment and cancelPayment move the aggregate', async () => {
    const created = await createViaGraph();
    const reference = created.reference;
    const token = new URL(created.redirectUrl).searchParams.get('token');
    // What each step leaves is what the next mutation may do (the rule the mutations apply, payment-allowances.ts).
    const allowed = (capture: number, refund: number, cancel: 'TERMINATE' | 'RELEASE' | null) => ({
      capture: money(capture),
      refund: money(refund),
      cancel,
    });
    expect(created.allowedActions).toEqual(allowed(0, 0, 'TERMINATE'));

    const wrongToken = (await data(merchant, APPROVE, { input: { reference, customer: { phoneNumber: '4791234567' }, token: 'wrong' } }))
      .approveTestPayment;
    expect(wrongToken.payment).toBeNull();
    expect(wrongToken.userErrors).toEqual([expect.objectContaining({ code: 'APPROVE_FAILED', field: 'token' })]);

    const approved = (await data(merchant, APPROVE, { input: { reference, customer: { phoneNumber: '4791234567' }, token } }))
      .approveTestPayment;
    expect(approved.userErrors).toEqual([]);
    expect(approved.payment).toMatchObject({ reference, state: 'AUTHORIZED', aggregate: { authorizedAmount: money(10_000) } });
    expect(approved.payment.allowedActions).toEqual(allowed(10_000, 0, 'RELEASE'));

    const captured = (await data(merchant, CAPTURE, { input: { idempotencyKey: 'g-cap', reference, amount: nok(3_000) } })).capturePayment;
    expect(captured.userErrors).toEqual([]);
    expect(captured.payment.aggregate).toEqual({
      authorizedAmount: money(10_000),
      capturedAmount: money(3_000),
      cancelledAmount: money(0),
      refundedAmount: money(0),
    });

    expect(captured.payment.allowedActions).toEqual(allowed(7_000, 3_000, 'RELEASE'));

    const refunded = (await data(merchant, REFUND, { input: { idempotencyKey: 'g-ref', reference, amount: nok(1_000) } })).refundPayment;
    expect(refunded.userErrors).toEqual([]);
    expect(refunded.payment.aggregate.refundedAmount).toEqual(money(1_000));
    expect(refunded.payment.allowedActions).toEqual(allowed(7_000, 2_000, 'RELEASE'));

    const cancelled = (await data(merchant, CANCEL, { input: { idempotencyKey: 'g-can', reference } })).cancelPayment;
    expect(cancelled.userErrors).toEqual([]);
    expect(cancelled.payment.state).toBe('AUTHORIZED');
    expect(cancelled.payment.aggregate).toEqual({
      authorizedAmount: money(10_000),
      capturedAmount: money(3_000),
      cancelledAmount: money(7_000),
      refundedAmount: money(1_000),
    });
    expect(cancelled.payment.allowedActions).toEqual(allowed(0, 2_000, null));

    const events = (await merchant.events(reference)).body.map((e: any) => [e.name, e.amount.value, e.idempotencyKey]);
    expect(events).toEqual([
      ['CREATED', 10_000, expect.any(String)],
      ['AUTHORIZED', 10_000, null],
      ['CAPTURED', 3_000, 'g-cap'],
      ['REFUNDED', 1_000, 'g-ref'],
      ['CANCELLED', 7_000, 'g-can'],
    ]);

    const again = (await data(merchant, APPROVE, { input: { reference } })).approveTestPayment;
    expect(again.userErrors).toEqual([expect.objectContaining({ code: 'APPROVE_FAILED' })]);
  });

  test('cancel before approval terminates the payment', async () => {
    const { reference } = await createViaGraph();
    const cancelled = (await data(merchant, CANCEL, { input: { idempotencyKey: randomUUID(), reference } })).cancelPayment;
    expect(cancelled.userErrors).toEqual([]);
    expect(cancelled.payment).toMatchObject({ state: 'TERMINATED', aggregate: { cancelledAmount: money(10_000) } });
  });

  test('approveTestPayment is a FORBIDDEN_IN_PRODUCTION userError in production', async () => {
    const { reference } = await createViaGraph();
    const config = t.app.services.config;
    const env = config.env;
    config.env = 'production';
    let payload: any;
    try {
      payload = (await data(merchant, APPROVE, { input: { reference, customer: { phoneNumber: '4791234567' } } })).approveTestPayment;
    } finally {
      config.env = env;
    }
    expect(payload.payment).toBeNull();
    expect(payload.userErrors).toEqual([expect.objectContaining({ code: 'FORBIDDEN_IN_PRODUCTION' })]);
    expect((await data(merchant, PAYMENT, { reference })).payment.state).toBe('CREATED');
  });

  test("over-capture is a CAPTURE_AMOUNT_TOO_HIGH userError on the input's own field, amount.value, and changes nothing", async () => {
    const { reference } = await createViaGraph({ amount: nok(5_000) });
    await approve(reference);
    const over = (await data(merchant, CAPTURE, { input: { idempotencyKey: randomUUID(), reference, amount: nok(5_001) } })).capturePayment;
    expect(over.payment).toBeNull();
    expect(over.userErrors).toEqual([{ code: 'CAPTURE_AMOUNT_TOO_HIGH', field: 'amount.value', message: expect.any(String) }]);
    const after = (await data(merchant, PAYMENT, { reference })).payment;
    expect(after.aggregate.capturedAmount).toEqual(money(0));
    expect(after.events.edges.map((e: any) => e.node.name)).toEqual(['CREATED', 'AUTHORIZED']);
  });

  test('capture before approval and a non-positive amount are userErrors', async () => {
    const { reference } = await createViaGraph();
    const early = (await data(merchant, CAPTURE, { input: { idempotencyKey: randomUUID(), reference, amount: nok(100) } })).capturePayment;
    expect(early.userErrors).toEqual([expect.objectContaining({ code: 'CAPTURE_BEFORE_RESERVATION' })]);
    await approve(reference);
    const zero = (await data(merchant, CAPTURE, { input: { idempotencyKey: randomUUID(), reference, amount: nok(0) } })).capturePayment;
    expect(zero.userErrors).toEqual([expect.objectContaining({ code: 'VALIDATION_FAILED', field: 'amount.value' })]);
    expect(await capturedEvents(reference)).toHaveLength(0);
  });
});

describe('reads', () => {
  test('payment(reference) has the aggregate and the events, oldest first', async () => {
    const { reference } = await createViaGraph({ idempotencyKey: 'read-create' });
    // Each event has a PSP reference of its own.
    const pspReference = expect.stringMatching(/^\d{10}$/);
    await approve(reference);
    await data(merchant, CAPTURE, { input: { idempotencyKey: 'read-cap', reference, amount: nok(2_500) } });
    const payment = (await data(merchant, PAYMENT, { reference })).payment;
    expect(payment.aggregate).toEqual({
      authorizedAmount: money(10_000),
      capturedAmount: money(2_500),
      cancelledAmount: money(0),
      refundedAmount: money(0),
    });
    expect(payment.events.pageInfo.hasNextPage).toBe(false);
    const nodes = payment.events.edges.map((e: any) => e.node);
    expect(nodes).toEqual([
      {
        id: expect.any(String),
        reference,
        pspReference,
        name: 'CREATED',
        amount: nok(10_000),
        timestamp: expect.any(String),
        idempotencyKey: 'read-create',
        success: true,
      },
      {
        id: expect.any(String),
        reference,
        pspReference,
        name: 'AUTHORIZED',
        amount: nok(10_000),
        timestamp: expect.any(String),
        idempotencyKey: null,
        success: true,
      },
      {
        id: expect.any(String),
        reference,
        pspReference,
        name: 'CAPTURED',
        amount: nok(2_500),
        timestamp: expect.any(String),
        idempotencyKey: 'read-cap',
        success: true,
      },
    ]);
    expect(new Set(nodes.map((n: any) => n.id)).size).toBe(3);
    expect(new Set(nodes.map((n: any) => n.pspReference)).size).toBe(3);
    expect((await data(merchant, PAYMENT, { reference: newReference() })).payment).toBeNull();
  });

  test('payments: newest first, filtered by state, and keyset pages without duplicates or gaps', async () => {
    const references: string[] = [];
    for (let i = 0; i < 7; i++) {
      t.clock.advance(1_000);
      references.push((await createViaGraph()).reference);
    }
    await approve(references[1]!);
    await approve(references[4]!);

    const all = (await data(merchant, PAYMENTS, { first: 100 })).payments;
    expect(all.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    const listed: { reference: string; createdAt: string }[] = all.edges.map((e: any) => e.node);
    // The newest seven are those just created, newest first.
    expect(listed.slice(0, 7).map((n) => n.reference)).toEqual([...references].reverse());
    const times = listed.map((n) => Date.parse(n.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(listed.length).toBeGreaterThan(7);

    const authorized = (await data(merchant, PAYMENTS, { first: 100, filter: { state: ['AUTHORIZED'] } })).payments.edges.map(
      (e: any) => e.node,
    );
    expect(authorized.every((n: any) => n.state === 'AUTHORIZED')).toBe(true);
    expect(authorized.map((n: any) => n.reference).slice(0, 2)).toEqual([references[4], references[1]]);
    expect(authorized.length).toBe(listed.filter((n: any) => n.state === 'AUTHORIZED').length);
    const both = (await data(merchant, PAYMENTS, { first: 100, filter: { state: ['AUTHORIZED', 'CREATED'] } })).payments.edges;
    expect(both.length).toBe(listed.filter((n: any) => n.state === 'AUTHORIZED' || n.state === 'CREATED').length);

    for (const size of [1, 2, 3]) {
      const paged: string[] = [];
      let after: string | undefined;
      for (let pages = 0; ; pages++) {
        if (pages > listed.length) throw new Error('pagination does not end');
        const page = (await data(merchant, PAYMENTS, { first: size, after })).payments;
        expect(page.edges.length).toBeLessThanOrEqual(size);
        expect(page.pageInfo.hasPreviousPage).toBe(after !== undefined);
        paged.push(...page.edges.map((e: any) => e.node.reference));
        expect(page.pageInfo.hasNextPage).toBe(paged.length < listed.length);
        expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
        if (!page.pageInfo.hasNextPage) break;
        expect(page.edges).toHaveLength(size);
        after = page.pageInfo.endCursor;
      }
      expect(paged).toEqual(listed.map((n) => n.reference));
    }

    const filteredPage = (await data(merchant, PAYMENTS, { first: 1, filter: { state: ['AUTHORIZED'] } })).payments;
    const next = (await data(merchant, PAYMENTS, { first: 1, after: filteredPage.pageInfo.endCursor, filter: { state: ['AUTHORIZED'] } }))
      .payments;
    expect([...filteredPage.edges, ...next.edges].map((e: any) => e.node.reference)).toEqual([references[4], references[1]]);
  });

  test('first: 101 is an error; first: 100 is not', async () => {
    const res = await merchant.graphql(PAYMENTS, { first: 101 });
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toEqual([
      expect.objectContaining({ message: 'first must be from 0 to 100', extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) }),
    ]);
    expect((await merchant.graphql(PAYMENTS, { first: 100 })).body.errors).toBeUndefined();
  });

  test('events page by first/after, oldest first', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    for (const value of [1_000, 2_000, 3_000]) await merchant.modify(reference, 'capture', value);
    const query = `query($r: String!, $after: String) { payment(reference: $r) { events(first: 2, after: $after) { edges { node { name amount { value } } } pageInfo { hasNextPage endCursor } } } }`;
    const names: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const events = (await data(merchant, query, { r: reference, after })).payment.events;
      names.push(...events.edges.map((e: any) => `${e.node.name}:${e.node.amount.value}`));
      if (!events.pageInfo.hasNextPage) break;
      after = events.pageInfo.endCursor;
    }
    expect(names).toEqual(['CREATED:10000', 'AUTHORIZED:10000', 'CAPTURED:1000', 'CAPTURED:2000', 'CAPTURED:3000']);
  });

  test('the first events of a page of payments come per payment, each with its own next page', async () => {
    const busy = await merchant.authorizedPayment(10_000);
    for (const value of [1_000, 2_000]) await merchant.modify(busy, 'capture', value);
    const quiet = newReference('gql');
    await merchant.createPayment({ reference: quiet });
    // Two payments read in one operation: their first events are loaded in one batch.
    const events = '{ events(first: 2) { edges { node { name } } pageInfo { hasNextPage endCursor } } }';
    const both = await data(
      merchant,
      `query($b: String!, $q: String!) { busy: payment(reference: $b) ${events} quiet: payment(reference: $q) ${events} }`,
      {
        b: busy,
        q: quiet,
      },
    );
    const names = (page: any) => page.edges.map((e: any) => e.node.name);
    expect(names(both.quiet.events)).toEqual(['CREATED']);
    expect(both.quiet.events.pageInfo.hasNextPage).toBe(false);
    expect(names(both.busy.events)).toEqual(['CREATED', 'AUTHORIZED']);
    expect(both.busy.events.pageInfo.hasNextPage).toBe(true);

    // The next page is one keyset query for that payment, starting after the cursor.
    const next = `query($r: String!, $after: String) { payment(reference: $r) { events(first: 2, after: $after) { edges { node { name amount { value } } } pageInfo { hasNextPage hasPreviousPage } } } }`;
    const before = t.queries.length;
    const page = (await data(merchant, next, { r: busy, after: both.busy.events.pageInfo.endCursor })).payment.events;
    expect(page.edges.map((e: any) => `${e.node.name}:${e.node.amount.value}`)).toEqual(['CAPTURED:1000', 'CAPTURED:2000']);
    expect(page.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
    // (Background jobs share the log; only this request reads events with `select *`.)
    expect(t.queries.slice(before).filter((sql) => /^select \* from payment_event/i.test(sql))).toEqual([
      expect.stringMatching(/where payment_id = .+ and id > .+ order by id limit/i),
    ]);
  });

  test.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['a string id', Buffer.from(JSON.stringify(['abc'])).toString('base64url')],
    ['an object', Buffer.from(JSON.stringify({ id: 1 })).toString('base64url')],
    ['a payments cursor', Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'x'])).toString('base64url')],
    ['a fraction', Buffer.from(JSON.stringify([1.5])).toString('base64url')],
  ])('an events cursor that is %s is the invalid-cursor error, not an empty page', async (_, after) => {
    const reference = await merchant.authorizedPayment(1_000);
    const query = `query($r: String!, $after: String) { payment(reference: $r) { events(first: 2, after: $after) { edges { node { name } } } } }`;
    const res = await merchant.graphql(query, { r: reference, after });
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: 'after is not a cursor of this connection',
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      }),
    ]);
  });

  test('a malformed cursor is an error', async () => {
    const res = await merchant.graphql(PAYMENTS, { first: 1, after: 'not-a-cursor' });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  test("cursors are signed and bound to their list: another list's cursor or an edited one is refused", async () => {
    const reference = await merchant.authorizedPayment(1_000);
    const events = `query($r: String!, $after: String) { payment(reference: $r) { events(first: 1, after: $after) { edges { cursor node { name } } } } }`;
    const eventCursor = (await data(merchant, events, { r: reference })).payment.events.edges[0].cursor as string;
    const paymentCursor = (await data(merchant, PAYMENTS, { first: 1 })).payments.edges[0].cursor as string;
    expect((await data(merchant, events, { r: reference, after: eventCursor })).payment.events.edges).toHaveLength(1);
    // The same keyset value (the first event's id) re-encoded by hand, without the service's signature.
    const [body] = eventCursor.split('.');
    const forged = `${Buffer.from(JSON.stringify([Number(JSON.parse(Buffer.from(body!, 'base64url').toString())[0]) - 1])).toString('base64url')}.${eventCursor.split('.')[1]}`;
    for (const after of [paymentCursor, forged, body!]) {
      const res = await merchant.graphql(events, { r: reference, after });
      expect(res.body.errors).toEqual([expect.objectContaining({ message: 'after is not a cursor of this connection' })]);
    }
  });

  test('node(id:) finds a Payment and a PaymentEvent; unknown ids are null', async () => {
    const { reference } = await createViaGraph();
    const payment = (await data(merchant, PAYMENT, { reference })).payment;
    const asNode = (await data(merchant, NODE, { id: payment.id })).node;
    expect(asNode).toEqual({ __typename: 'Payment', id: payment.id, reference, state: 'CREATED' });

    const eventId = payment.events.edges[0].node.id;
    const event = (await data(merchant, NODE, { id: eventId })).node;
    expect(event).toEqual({ __typename: 'PaymentEvent', id: eventId, name: 'CREATED', reference, amount: money(10_000) });

    for (const id of [
      toGlobalId('Payment', randomUUID()),
      toGlobalId('PaymentEvent', 987654321),
      toGlobalId('Payment', 'not-a-uuid'),
      'garbage',
      toGlobalId('Webhook', randomUUID()),
    ]) {
      expect((await data(merchant, NODE, { id })).node).toBeNull();
    }
  });
});

describe('tenancy', () => {
  test("merchant B sees nothing of merchant A's payments and cannot modify them", async () => {
    const { reference } = await createViaGraph();
    const owned = await approve(reference);
    const payment = (await data(merchant, PAYMENT, { reference })).payment;
    const eventId = payment.events.edges[0].node.id;

    expect((await data(other, PAYMENT, { reference })).payment).toBeNull();
    expect((await data(other, NODE, { id: owned.id })).node).toBeNull();
    expect((await data(other, NODE, { id: eventId })).node).toBeNull();

    const own = await createViaGraph({}, other);
    const seen = await allReferences(other);
    expect(seen).toContain(own.reference);
    const aReferences = new Set(await allReferences(merchant));
    expect(seen.filter((r) => aReferences.has(r))).toEqual([]);
    expect(aReferences.has(own.reference)).toBe(false);

    const capture = (await data(other, CAPTURE, { input: { idempotencyKey: randomUUID(), reference, amount: nok(100) } })).capturePayment;
    expect(capture.payment).toBeNull();
    expect(capture.userErrors).toEqual([expect.objectContaining({ code: 'PAYMENT_NOT_FOUND', field: 'reference' })]);
    const cancel = (await data(other, CANCEL, { input: { idempotencyKey: randomUUID(), reference } })).cancelPayment;
    expect(cancel.userErrors).toEqual([expect.objectContaining({ code: 'PAYMENT_NOT_FOUND' })]);
    const approveB = (await data(other, APPROVE, { input: { reference } })).approveTestPayment;
    expect(approveB.userErrors).toEqual([expect.objectContaining({ code: 'PAYMENT_NOT_FOUND' })]);

    const after = (await data(merchant, PAYMENT, { reference })).payment;
    expect(after.aggregate).toEqual(owned.aggregate);
    expect(after.events.edges.map((e: any) => e.node.name)).toEqual(['CREATED', 'AUTHORIZED']);
  });
});

describe('HTTP front', () => {
  const withoutAuthorization = async (): Promise<Record<string, string>> => {
    const { Authorization: _, ...headers } = await merchant.headers();
    return headers;
  };

  test('a missing token is a 401 with UNAUTHENTICATED', async () => {
    const res: HttpResult = await merchant.raw(
      'POST',
      '/graphql',
      { query: '{ payments { edges { cursor } } }' },
      await withoutAuthorization(),
    );
    expect(res.status).toBe(401);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  test('a bad token is a 401 with UNAUTHENTICATED', async () => {
    const res = await merchant.raw(
      'POST',
      '/graphql',
      { query: '{ __typename }' },
      { ...(await withoutAuthorization()), Authorization: 'Bearer not.a.token' },
    );
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  test('a malformed Merchant-Serial-Number is a 400', async () => {
    const res = await merchant.raw(
      'POST',
      '/graphql',
      { query: '{ __typename }' },
      await merchant.headers({ 'Merchant-Serial-Number': 'abc' }),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(res.body.errors[0].extensions.details).toContainEqual(expect.objectContaining({ name: 'Merchant-Serial-Number' }));
  });

  test("another merchant's MSN is a 403 with FORBIDDEN", async () => {
    const res = await other.raw(
      'POST',
      '/graphql',
      { query: '{ __typename }' },
      await other.headers({ 'Merchant-Serial-Number': merchant.merchant.msn }),
    );
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('idempotency shared with REST', () => {
  test('a capture via REST with key K, repeated via the graph with K, runs once', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const rest = await merchant.modify(reference, 'capture', 1_000, 'shared-K');
    expect(rest.status).toBe(200);
    const graph = (await data(merchant, CAPTURE, { input: { idempotencyKey: 'shared-K', reference, amount: nok(1_000) } })).capturePayment;
    expect(graph.userErrors).toEqual([]);
    expect(graph.payment.aggregate.capturedAmount).toEqual(money(1_000));
    expect(await capturedEvents(reference)).toHaveLength(1);

    // The same key with another amount is a conflict on either face.
    const conflict = (await data(merchant, CAPTURE, { input: { idempotencyKey: 'shared-K', reference, amount: nok(2_000) } }))
      .capturePayment;
    expect(conflict.userErrors).toEqual([
      { code: 'IDEMPOTENCY_CONFLICT', field: 'Idempotency-Key', message: expect.stringMatching(/^Capture idempotency conflict: /) },
    ]);
    expect(await capturedEvents(reference)).toHaveLength(1);
  });

  test('each operation names its own conflict; the graph code is IDEMPOTENCY_CONFLICT for all', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    await merchant.modify(reference, 'capture', 5_000);
    const refund = (key: string, value: number) =>
      data(merchant, REFUND, { input: { idempotencyKey: key, reference, amount: nok(value) } }).then((d) => d.refundPayment);
    expect((await refund('graph-refund-K', 1_000)).userErrors).toEqual([]);
    expect((await refund('graph-refund-K', 2_000)).userErrors).toEqual([
      expect.objectContaining({ code: 'IDEMPOTENCY_CONFLICT', message: expect.stringMatching(/^Refund idempotency conflict: /) }),
    ]);
    // One key on two payments is two cancels (the key is scoped to the payment it acts on, as on REST).
    const created = [newReference('gql'), newReference('gql')];
    for (const r of created) await merchant.createPayment({ reference: r });
    const cancel = (r: string) =>
      data(merchant, CANCEL, { input: { idempotencyKey: 'graph-cancel-K', reference: r } }).then((d) => d.cancelPayment);
    expect((await cancel(created[0]!)).userErrors).toEqual([]);
    expect((await cancel(created[1]!)).userErrors).toEqual([]);
    expect((await merchant.getPayment(created[1]!)).body.state).toBe('TERMINATED');
  });

  test('a create via REST with key K, repeated via the graph with K, returns the same payment', async () => {
    const reference = newReference('gql');
    const rest = await merchant.createPayment({ reference, metadata: { order: '7' } }, 'shared-create');
    expect(rest.status).toBe(201);
    const input = createInput({ idempotencyKey: 'shared-create', reference, metadata: [{ key: 'order', value: '7' }] });
    const graph = (await data(merchant, CREATE, { input })).createPayment;
    expect(graph.userErrors).toEqual([]);
    expect(graph.redirectUrl).toBe(rest.body.redirectUrl);
    expect(graph.payment.reference).toBe(reference);
    expect((await merchant.events(reference)).body).toHaveLength(1);
  });

  test('a capture via the graph with key K, repeated via REST with K, runs once', async () => {
    const reference = await merchant.authorizedPayment(10_000);
    const graph = (await data(merchant, CAPTURE, { input: { idempotencyKey: 'shared-K2', reference, amount: nok(4_000) } })).capturePayment;
    expect(graph.userErrors).toEqual([]);
    const rest = await merchant.modify(reference, 'capture', 4_000, 'shared-K2');
    expect(rest.status).toBe(200);
    expect(rest.body.aggregate.capturedAmount).toEqual(nok(4_000));
    expect(await capturedEvents(reference)).toHaveLength(1);
  });

  test('a refused capture is replayed to the other face', async () => {
    const reference = await merchant.authorizedPayment(1_000);
    const rest = await merchant.modify(reference, 'capture', 5_000, 'shared-K3');
    expect(rest.status).toBe(400);
    const graph = (await data(merchant, CAPTURE, { input: { idempotencyKey: 'shared-K3', reference, amount: nok(5_000) } })).capturePayment;
    // The stored first answer, as REST gave it: its field is REST's.
    expect(graph.userErrors).toEqual([expect.objectContaining({ code: 'CAPTURE_AMOUNT_TOO_HIGH', field: 'modificationAmount.value' })]);
  });
});
