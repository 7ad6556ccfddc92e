import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATCH_UP_PAGE } from '../../src/operator/listen/event-feed.js';
import { runListen } from '../../src/operator/listen/listen.command.js';
import { forkEm } from '../../src/platform/db/orm.js';
import { signWebhookRequest } from '../../src/platform/delivery/webhook-signature.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { MERCHANT_A, MerchantClient, newReference } from '../support/merchant-client.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { freePort } from '../support/free-port.js';

/**
 * issue 37 item 1: `paygraph listen` against a live test app, with a receiver that is down when listen starts and then
 * answers 503 to the first attempt of every event. Every event is held back until its predecessor was acknowledged,
 * each is acknowledged once, and the cursor file ends at the last. (test/operations/listen-restarts.test.ts kills and
 * restarts listen and the service as processes.)
 */
let t: TestApp;
let merchant: MerchantClient;
let dir: string;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
  dir = await mkdtemp(join(tmpdir(), 'paygraph-listen-'));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

interface Received {
  eventId: string;
  status: number;
  body: string;
  headers: IncomingMessage['headers'];
  url: string;
}

async function until(what: string, holds: () => boolean, log: () => unknown, look: () => Promise<void> = async () => {}): Promise<void> {
  for (
    const deadline = Date.now() + CONDITION_DEADLINE_MS;
    await look(), !holds();
    await new Promise((resolve) => setTimeout(resolve, 25))
  ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(log(), null, 1)}`);
  }
}

/** Retries within a second: the receiver here comes up, and answers 200, at once. */
const QUICK = { firstMs: 50, maxMs: 1_000 };

const OUTBOX = `query($after: ID) {
  events(first: 100, order: OLDEST_FIRST, afterEventId: $after) { edges { node { eventId name reference webhookBody } } }
}`;

test('a receiver down at start is waited for; a 503 is retried and holds back the rest; each event is acknowledged once, signed as a webhook', async () => {
  const port = await freePort();
  const target = `http://127.0.0.1:${port}/hooks/paygraph?shop=1`;
  // Events before listen starts are not forwarded: a first run starts after the unit's newest event.
  await merchant.createPayment({ reference: newReference('before') });
  const started = await merchant.graphql('{ events(first: 1) { edges { node { eventId } } } }');
  const startId = started.body.data.events.edges[0].node.eventId as string;

  const lines: string[] = [];
  const status: string[] = [];
  const stop = new AbortController();
  const cursorFile = join(dir, 'a.cursor');
  const args = ['--forward-to', target, '--url', t.baseUrl, '--cursor-file', cursorFile];
  const credentials = {
    PAYGRAPH_CLIENT_ID: MERCHANT_A.clientId,
    PAYGRAPH_CLIENT_SECRET: MERCHANT_A.clientSecret,
    PAYGRAPH_SUBSCRIPTION_KEY: MERCHANT_A.subscriptionKey,
  };
  const secretRun: string[] = [];
  expect(
    await runListen(['--print-secret', '--cursor-file', cursorFile], { output: { delivery: (l) => secretRun.push(l), status: () => {} } }),
  ).toBe(0);
  const secret = secretRun[0]!;
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

  const listening = runListen(args, {
    env: credentials,
    stop: stop.signal,
    delays: QUICK,
    output: { delivery: (line) => lines.push(line), status: (line) => status.push(line) },
  });
  await until(
    'the receiver reported down',
    () => status.some((l) => l.includes('is down (ECONNREFUSED): waiting for it')),
    () => status,
  );

  // Events made while the receiver is down wait for it.
  const references = [newReference('listen-a'), newReference('listen-b')];
  for (const reference of references) await merchant.authorizedPayment(1_000, { reference });
  expect((await merchant.modify(references[0]!, 'capture', 500)).status).toBe(200);
  expect((await merchant.modify(references[1]!, 'cancel')).status).toBe(200);

  const received: Received[] = [];
  const attempts = new Map<string, number>();
  const receiver: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const eventId = String(req.headers['x-paygraph-event-id']);
      const attempt = (attempts.get(eventId) ?? 0) + 1;
      attempts.set(eventId, attempt);
      const statusCode = attempt === 1 ? 503 : 200;
      received.push({ eventId, status: statusCode, body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, url: req.url! });
      res.writeHead(statusCode).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
  try {
    const outbox = (await merchant.graphql(OUTBOX, { after: startId })).body.data.events.edges.map((e: any) => e.node);
    const forwarded = outbox.filter((e: any) => e.webhookBody !== null);
    expect(forwarded.map((e: any) => e.name)).toEqual([
      'epayments.payment.created.v1',
      'epayments.payment.authorized.v1',
      'epayments.payment.created.v1',
      'epayments.payment.authorized.v1',
      'epayments.payment.captured.v1',
      'epayments.payment.cancelled.v1',
    ]);
    const last = forwarded.at(-1).eventId;
    // Acknowledged, and reported: listen prints an attempt's line once the receiver's answer is in, so the receiver can
    // have answered the last event before its line is out.
    const lastAcknowledgedLine = new RegExp(`Z +${last}  .* 200  \\d+ ms$`);
    await until(
      'every event acknowledged and reported',
      () => received.some((r) => r.eventId === last && r.status === 200) && lines.some((l) => lastAcknowledgedLine.test(l)),
      () => ({ received, lines }),
    );
    expect(status).toContain(`the receiver at ${target} answers: forwarding`);

    // In order, each refused once then acknowledged once: the 503 held back every event after it.
    expect(received.map((r) => [r.eventId, r.status])).toEqual(
      forwarded.flatMap((e: any) => [
        [e.eventId, 503],
        [e.eventId, 200],
      ]),
    );
    // Each request is a webhook delivery of the event: its body, and headers signed with listen's secret.
    for (const r of received) {
      const event = forwarded.find((e: any) => e.eventId === r.eventId);
      expect(r.body).toBe(event.webhookBody);
      const date = new Date(String(r.headers['x-ms-date']));
      expect({ ...r.headers }).toMatchObject({
        ...signWebhookRequest(new URL(target), r.body, secret, date),
        'content-type': 'application/json',
      });
      expect(r.url).toBe('/hooks/paygraph?shop=1');
    }
    // One line per attempt: time, event, reference, the receiver's status, milliseconds.
    const reference = (e: any) => e.reference as string;
    expect(lines.filter((l) => / 200 {2}\d+ ms$/.test(l))).toHaveLength(forwarded.length);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +${forwarded[0].eventId}  epayments\\.payment\\.created\\.v1  ${reference(forwarded[0])}  503  \\d+ ms  \\(attempt 1, retrying in `,
      ),
    );
    // The cursor is written once the receiver answered: it ends at the unit's last event (skipped ones included).
    let cursor = '';
    await until(
      'the cursor at the last event',
      () => cursor === outbox.at(-1).eventId,
      () => ({ cursor, outbox }),
      async () => {
        cursor = (await readFile(cursorFile, 'utf8')).trim();
      },
    );
  } finally {
    stop.abort();
    expect(await listening).toBe(0);
    await new Promise((resolve) => receiver.close(resolve));
  }
});

test('StreamEvent.webhookBody is byte for byte the body the webhook dispatcher POSTs for the event', async () => {
  const receiver = await acknowledgingReceiver();
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', {
    url: receiver.url,
    events: ['epayments.payment.created.v1', 'epayments.payment.authorized.v1', 'epayments.payment.captured.v1'],
  });
  expect(registered.status).toBe(201);
  try {
    const startId = await newestEventId(merchant);
    const reference = await merchant.authorizedPayment(1_000, { reference: newReference('listen-body') });
    expect((await merchant.modify(reference, 'capture', 1_000)).status).toBe(200);
    const outbox = (await merchant.graphql(OUTBOX, { after: startId })).body.data.events.edges.map((e: any) => e.node);
    expect(outbox).toHaveLength(3);
    await until(
      'the three deliveries',
      () => receiver.received.length === 3,
      () => receiver.received,
    );
    const byId = new Map(receiver.received.map((r) => [r.eventId, r.body]));
    for (const event of outbox) expect(event.webhookBody).toBe(byId.get(event.eventId));
  } finally {
    await merchant.request('DELETE', `/webhooks/v1/webhooks/${registered.body.id}`);
    await receiver.close();
  }
});

/** listen in this process, with its output collected, until `stop()`. */
function startListen(args: string[], env: Record<string, string>) {
  const lines: string[] = [];
  const status: string[] = [];
  const controller = new AbortController();
  const done = runListen(args, {
    env,
    stop: controller.signal,
    delays: QUICK,
    output: { delivery: (l) => lines.push(l), status: (l) => status.push(l) },
  });
  return {
    lines,
    status,
    stop: async () => {
      controller.abort();
      return done;
    },
  };
}

/** A receiver that acknowledges every request, noting its event id and body. */
async function acknowledgingReceiver(): Promise<{ url: string; received: { eventId: string; body: string }[]; close(): Promise<void> }> {
  const received: { eventId: string; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ eventId: String(req.headers['x-paygraph-event-id']), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function newestEventId(client: MerchantClient): Promise<string> {
  return (await client.graphql('{ events(first: 1) { edges { node { eventId } } } }')).body.data.events.edges[0]?.node.eventId ?? '0';
}

test('a partner names the unit with --msn; an event no webhook can carry is skipped, and the cursor moves past it', async () => {
  const receiver = await acknowledgingReceiver();
  const startId = await newestEventId(merchant);
  const cursorFile = join(dir, 'partner.cursor');
  const listen = startListen(
    ['--forward-to', receiver.url, '--url', t.baseUrl, '--msn', '123456', '--cursor-file', cursorFile, '--after', startId],
    {
      PAYGRAPH_CLIENT_ID: 'test-client-partner',
      PAYGRAPH_CLIENT_SECRET: 'test-secret-partner',
      PAYGRAPH_SUBSCRIPTION_KEY: 'test-key-partner',
    },
  );
  try {
    await until(
      'listen to start',
      () => listen.status.some((l) => l.startsWith("forwarding sales unit 123456's events")),
      () => listen.status,
    );
    const rename = `mutation { updateSalesUnit(input: { msn: "123456", name: "Listened Cafe" }) { userErrors { code } } }`;
    expect((await merchant.graphql(rename)).body.data.updateSalesUnit.userErrors).toEqual([]);
    const reference = newReference('listen-partner');
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    const outbox = (await merchant.graphql(OUTBOX, { after: startId })).body.data.events.edges.map((e: any) => e.node);
    expect(outbox.map((e: any) => [e.name, e.webhookBody === null])).toEqual([
      ['management.sales-unit.updated.v1', true],
      ['epayments.payment.created.v1', false],
    ]);
    await until(
      'the payment event',
      () => receiver.received.length === 1,
      () => ({ received: receiver.received, status: listen.status }),
    );
    expect(receiver.received).toEqual([{ eventId: outbox[1].eventId, body: outbox[1].webhookBody }]);
    let cursor = '';
    await until(
      'the cursor at the last event',
      () => cursor === outbox[1].eventId,
      () => cursor,
      async () => {
        cursor = (await readFile(cursorFile, 'utf8')).trim();
      },
    );
  } finally {
    expect(await listen.stop()).toBe(0);
    await receiver.close();
  }
});

test('--events forwards those names only; a merchant with one sales unit needs no --msn', async () => {
  const receiver = await acknowledgingReceiver();
  const startId = await newestEventId(merchant);
  const cursorFile = join(dir, 'captures.cursor');
  const listen = startListen(
    ['--forward-to', receiver.url, '--url', t.baseUrl, '--events', 'epayments.payment.captured.v1', '--cursor-file', cursorFile],
    {
      PAYGRAPH_CLIENT_ID: MERCHANT_A.clientId,
      PAYGRAPH_CLIENT_SECRET: MERCHANT_A.clientSecret,
      PAYGRAPH_SUBSCRIPTION_KEY: MERCHANT_A.subscriptionKey,
    },
  );
  try {
    await until(
      'listen to start',
      () => listen.status.some((l) => l.includes(`after event ${startId} `)),
      () => listen.status,
    );
    const reference = await merchant.authorizedPayment(1_000, { reference: newReference('listen-captures') });
    expect((await merchant.modify(reference, 'capture', 400)).status).toBe(200);
    expect((await merchant.modify(reference, 'capture', 600)).status).toBe(200);
    const captures = (await merchant.graphql(OUTBOX, { after: startId })).body.data.events.edges
      .map((e: any) => e.node)
      .filter((e: any) => e.name === 'epayments.payment.captured.v1');
    expect(captures).toHaveLength(2);
    await until(
      'both captures',
      () => receiver.received.length === 2,
      () => ({ received: receiver.received, status: listen.status }),
    );
    expect(receiver.received.map((r) => r.eventId)).toEqual(captures.map((e: any) => e.eventId));
    expect(listen.lines.every((l) => l.includes('epayments.payment.captured.v1') && l.includes(reference))).toBe(true);
  } finally {
    expect(await listen.stop()).toBe(0);
    await receiver.close();
  }
});

test(`after an outage of more than ${CATCH_UP_PAGE} events (one page), listen pages forward from its cursor: each event once, in id order`, async () => {
  const receiver = await acknowledgingReceiver();
  const cursorFile = join(dir, 'outage.cursor');
  const args = ['--forward-to', receiver.url, '--url', t.baseUrl, '--cursor-file', cursorFile];
  const env = {
    PAYGRAPH_CLIENT_ID: MERCHANT_A.clientId,
    PAYGRAPH_CLIENT_SECRET: MERCHANT_A.clientSecret,
    PAYGRAPH_SUBSCRIPTION_KEY: MERCHANT_A.subscriptionKey,
  };
  // A first run writes its cursor (the unit's newest event), then the listener is down.
  const first = startListen(args, env);
  await until(
    'listen to start',
    () => first.status.some((l) => l.startsWith("forwarding sales unit 123456's events")),
    () => first.status,
  );
  expect(await first.stop()).toBe(0);
  const cursor = (await readFile(cursorFile, 'utf8')).trim();

  // Two pages of the oldest-first read and one event more, committed while it is down (at once, as another instance
  // would): the catch-up crosses two page boundaries.
  const count = 2 * CATCH_UP_PAGE + 1;
  const prefix = `${newReference('outage')}-`;
  const references = Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);
  await commitCreatedEvents(forkEm(t.app.services.orm), prefix, count);
  // In the stream (sequenced) before listen is back, so it reads them all from its cursor rather than live.
  let newest: string | undefined;
  await until(
    'the events in the stream',
    () => newest === references.at(-1),
    () => newest,
    async () => {
      newest = (await merchant.graphql('{ events(first: 1) { edges { node { reference } } } }')).body.data.events.edges[0]?.node.reference;
    },
  );

  const second = startListen(args, env);
  try {
    await until(
      'the last event',
      () => receiver.received.some((r) => JSON.parse(r.body).reference === references.at(-1)),
      () => ({ received: receiver.received.length, status: second.status }),
    );
    expect(second.status.some((l) => l.includes(`after event ${cursor} `))).toBe(true);
    const last = receiver.received.at(-1)!.eventId;
    let acknowledged = '';
    await until(
      'the cursor at the last event',
      () => acknowledged === last,
      () => acknowledged,
      async () => {
        acknowledged = (await readFile(cursorFile, 'utf8')).trim();
      },
    );
  } finally {
    expect(await second.stop()).toBe(0);
    await receiver.close();
  }
  // Every event once, in the order committed, and their ids rising: none lost or repeated at a page's edge.
  expect(receiver.received.map((r) => JSON.parse(r.body).reference)).toEqual(references);
  const ids = receiver.received.map((r) => BigInt(r.eventId));
  expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
  expect(ids[0]! > BigInt(cursor)).toBe(true);
});
