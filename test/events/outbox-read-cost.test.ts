import { forkEm } from '../../src/platform/db/orm.js';
import { outboxReadSql } from '../../src/platform/events/domain-event-bus.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// issue 23: the bus reads the outbox on every commit; its read must cost what is fresh, not what the outbox holds. A
// page of events in id order (`order by id limit`) made PostgreSQL walk the primary key through the whole outbox to
// find the few fresh events. Counted in buffers read (EXPLAIN), which no load on the machine changes; no time asserted.
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => forkEm(t.app.services.orm);

/**
 * The buffers a read with subscribers reads when nothing committed since the last one: its horizon a new transaction's
 * id, past every event here (a snapshot's xmin is the cluster's, which other databases' transactions hold back).
 */
async function quietReadBuffers(): Promise<number> {
  const [{ horizon }] = await db().execute<{ horizon: string }[]>(`select pg_current_xact_id()::text as horizon`);
  const [row] = await db().execute<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }[]>(
    `explain (analyze, buffers, format json) ${outboxReadSql(true, [])}`,
    [horizon],
  );
  const plan = row!['QUERY PLAN'][0].Plan;
  return plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
}

test('a read with subscribers costs the same over an outbox of 40 events and of 8,040 when nothing is fresh', async () => {
  await commitCreatedEvents(db(), 'small-', 40);
  const small = await quietReadBuffers();
  await commitCreatedEvents(db(), 'large-', 8_000);
  const large = await quietReadBuffers();
  // Walking the primary key, the large outbox cost about 150 more pages here.
  expect(large).toBeLessThanOrEqual(small + 4);
});

test('a page brings the oldest fresh events first, at most a page of them', async () => {
  const [{ horizon }] = await db().execute<{ horizon: string }[]>(`select pg_snapshot_xmin(pg_current_snapshot())::text as horizon`);
  await commitCreatedEvents(db(), 'page-', 600);
  const rows = await db().execute<{ event_id: string | number | null }[]>(outboxReadSql(true, []), [horizon]);
  const ids = rows.slice(1).map((r) => Number(r.event_id));
  expect(ids).toHaveLength(250);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  const [{ first }] = await db().execute<{ first: string }[]>(`select min(id)::text as first from domain_event where xid >= ?::xid8`, [
    horizon,
  ]);
  expect(ids[0]).toBe(Number(first));
});
