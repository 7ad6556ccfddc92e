import { forkEm } from '../../src/platform/db/orm.js';
import { callbackKinds, type CallbackKind } from '../../src/platform/delivery/callback-kinds.js';
import { INTERRUPTED_ATTEMPT_ERROR } from '../../src/platform/delivery/delivery-table.js';
import { recordCallback, type NewCallback } from '../../src/platform/delivery/record-callback.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';

/**
 * A test-only kind: three attempts, retries a second apart (the test moves the clock). The timeout is short for a
 * test, yet long enough that a busy machine never times out an answer that was on its way.
 */
const TIMEOUT_MS = 2_000;
const KIND: CallbackKind = {
  name: 'test.callback',
  timeoutMs: () => TIMEOUT_MS,
  retry: { maxAttempts: 3, firstDelayMs: 1_000, maxDelayMs: 4_000 },
};

let t: TestApp;
let receiver: WebhookReceiver;
let streamCount = 0;

beforeAll(async () => {
  callbackKinds.register(KIND);
  t = await startTestApp();
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

type Row = Record<string, unknown>;

const sql = (query: string, params: unknown[] = []) => forkEm(t.app.services.orm).execute<Row[]>(query, params);

/** A fresh stream and receiver path per test, so tests never see each other's callbacks. */
function fresh(): { streamId: string; path: string } {
  streamCount++;
  return { streamId: `stream-${streamCount}`, path: `/callbacks/${streamCount}` };
}

async function record(callback: Partial<NewCallback> & { streamId: string; path: string }): Promise<number> {
  const recorded = await forkEm(t.app.services.orm).transactional(async (em) =>
    recordCallback(
      em,
      KIND,
      {
        streamType: 'test-stream',
        url: receiver.url(callback.path),
        authorization: 'Bearer chosen-by-recipient',
        body: { n: 1 },
        ...callback,
      },
      t.clock.now(),
    ),
  );
  return recorded.id;
}

async function callback(id: number): Promise<Row> {
  const [row] = await sql('select status, attempt_count, last_status_code, next_attempt_at from delivery where id = ?', [id]);
  return row!;
}

async function attempts(id: number): Promise<Row[]> {
  return sql('select status_code, duration_ms, error from delivery_attempt where delivery_id = ? order by id', [id]);
}

async function eventually(condition: () => Promise<boolean>, what: string, timeoutMs = CONDITION_DEADLINE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a callback is POSTed with its body and the Authorization value its recipient chose, and recorded as delivered', async () => {
  const { streamId, path } = fresh();
  const id = await record({ streamId, path, body: { paymentId: 'p-1', status: 'RESERVED' } });
  await receiver.waitFor((received) => received.some((r) => r.path === path), 'the callback');
  const [request] = receiver.at(path);
  expect(request!.headers.authorization).toBe('Bearer chosen-by-recipient');
  expect(request!.headers['content-type']).toBe('application/json');
  expect(request!.body).toEqual({ paymentId: 'p-1', status: 'RESERVED' });
  await eventually(async () => (await callback(id)).status === 'delivered', 'the delivery to be recorded');
  expect(await callback(id)).toMatchObject({ attempt_count: 1, last_status_code: 200 });
  expect(await attempts(id)).toEqual([expect.objectContaining({ status_code: 200, error: null })]);
});

test('a failed callback is retried after the backoff, by the clock, and then delivered', async () => {
  const { streamId, path } = fresh();
  const replies = [503];
  receiver.reply(path, () => replies.shift() ?? 200);
  const id = await record({ streamId, path });
  await eventually(async () => (await callback(id)).attempt_count === 1, 'the first attempt');
  expect((await callback(id)).status).toBe('pending');
  // Not before its time: the retry is at least half the first delay away.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(receiver.at(path)).toHaveLength(1);
  t.clock.advance(KIND.retry.firstDelayMs);
  await eventually(async () => (await callback(id)).status === 'delivered', 'the retry');
  expect((await attempts(id)).map((a) => a.status_code)).toEqual([503, 200]);
});

test('a recipient that does not answer within the kind’s timeout counts as a failed attempt', async () => {
  const { streamId, path } = fresh();
  receiver.reply(path, () => ({ hang: 5 * TIMEOUT_MS }));
  const id = await record({ streamId, path });
  await eventually(async () => (await callback(id)).attempt_count === 1, 'the timed-out attempt');
  const [attempt] = await attempts(id);
  expect(attempt).toMatchObject({ status_code: null, error: expect.stringMatching(/^timeout/) });
  // It gave up at its timeout, not when the answer came.
  expect(Number(attempt!.duration_ms)).toBeLessThan(5 * TIMEOUT_MS);
  expect((await callback(id)).status).toBe('pending');
  receiver.reply(path, () => 200);
  t.clock.advance(KIND.retry.firstDelayMs);
  await eventually(async () => (await callback(id)).status === 'delivered', 'the retry after the timeout');
});

test('after the kind’s last attempt fails the callback has failed for good', async () => {
  const { streamId, path } = fresh();
  receiver.reply(path, () => 500);
  const id = await record({ streamId, path });
  for (let attempt = 1; attempt < KIND.retry.maxAttempts; attempt++) {
    await eventually(async () => (await callback(id)).attempt_count === attempt, `attempt ${attempt}`);
    t.clock.advance(KIND.retry.maxDelayMs);
  }
  await eventually(async () => (await callback(id)).status === 'failed', 'giving up');
  expect(await callback(id)).toMatchObject({ attempt_count: KIND.retry.maxAttempts, last_status_code: 500 });
  t.clock.advance(KIND.retry.maxDelayMs * 10);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(receiver.at(path)).toHaveLength(KIND.retry.maxAttempts);
});

test('callbacks of one stream reach their URL in order: a later one waits while an earlier one is retried', async () => {
  const { streamId, path } = fresh();
  const replies = [500];
  receiver.reply(path, () => replies.shift() ?? 200);
  const first = await record({ streamId, path, body: { n: 1 } });
  const second = await record({ streamId, path, body: { n: 2 } });
  await eventually(async () => (await callback(first)).attempt_count === 1, 'the first attempt');
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(receiver.at(path).map((r) => r.body.n)).toEqual([1]);
  t.clock.advance(KIND.retry.firstDelayMs);
  await eventually(async () => (await callback(second)).status === 'delivered', 'the second callback');
  expect(receiver.at(path).map((r) => r.body.n)).toEqual([1, 1, 2]);
});

test('a callback recorded in a transaction that rolls back is never sent', async () => {
  const { streamId, path } = fresh();
  await expect(
    forkEm(t.app.services.orm).transactional(async (em) => {
      recordCallback(em, KIND, { streamType: 'test-stream', streamId, url: receiver.url(path), body: {} }, t.clock.now());
      await em.flush();
      throw new Error('the change failed');
    }),
  ).rejects.toThrow('the change failed');
  expect(await sql('select id from delivery where stream_id = ?', [streamId])).toEqual([]);
});

test('an unregistered kind is refused when recorded, not left unsent', () => {
  const unknown: CallbackKind = { ...KIND, name: 'test.unregistered' };
  const em = forkEm(t.app.services.orm);
  expect(() => recordCallback(em, unknown, { streamType: 's', streamId: 'x', url: receiver.url('/x'), body: {} }, t.clock.now())).toThrow(
    /not registered/,
  );
});

test('after a restart mid-POST (a lease run out, an attempt without outcome) the callback is marked interrupted and sent again', async () => {
  const { streamId, path } = fresh();
  // What an instance that died mid-POST leaves behind: a lease already run out and an attempt with no outcome,
  // committed together (one statement), so the deliverer cannot claim the row in between.
  const [row] = await sql(
    `with callback as (
       insert into delivery (kind, receiver, stream_type, stream_id, url, body, status, attempt_count, next_attempt_at, lease_until, created_at)
       values (?, md5(?)::uuid, 'test-stream', ?, ?, '{"n":1}', 'pending', 0, ?, ?, ?) returning id
     )
     insert into delivery_attempt (delivery_id, attempted_at) select id, ? from callback returning delivery_id as callback_id`,
    [
      KIND.name,
      receiver.url(path),
      streamId,
      receiver.url(path),
      t.clock.now(),
      new Date(t.clock.now().getTime() - 1),
      t.clock.now(),
      t.clock.now(),
    ],
  );
  const id = Number(row!.callback_id);
  await eventually(async () => (await callback(id)).status === 'delivered', 'the callback after the restart');
  expect(await attempts(id)).toEqual([
    { status_code: null, duration_ms: null, error: INTERRUPTED_ATTEMPT_ERROR },
    expect.objectContaining({ status_code: 200, error: null }),
  ]);
});

const testOnPostgres = onPostgres ? test : test.skip;

testOnPostgres('two instances share the callbacks: each is sent once, and one stream’s in order', async () => {
  const second = await startTestApp({ databaseUrl: t.app.services.config.databaseUrl });
  try {
    second.clock.advance(t.clock.now().getTime() - second.clock.now().getTime());
    const path = `/callbacks/shared-${++streamCount}`;
    const streams = Array.from({ length: 10 }, (_, i) => `shared-${streamCount}-${i}`);
    await forkEm(t.app.services.orm).transactional(async (em) => {
      for (let n = 1; n <= 3; n++)
        for (const streamId of streams)
          recordCallback(em, KIND, { streamType: 'test-stream', streamId, url: receiver.url(path), body: { streamId, n } }, t.clock.now());
    });
    await receiver.waitFor((received) => received.filter((r) => r.path === path).length >= 30, 'every callback');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const received = receiver.at(path).map((r) => r.body as { streamId: string; n: number });
    expect(received).toHaveLength(30);
    for (const streamId of streams) expect(received.filter((r) => r.streamId === streamId).map((r) => r.n)).toEqual([1, 2, 3]);
  } finally {
    await second.close();
  }
});
