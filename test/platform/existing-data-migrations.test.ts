import { randomUUID } from 'node:crypto';
import { countDoomed, deleteInBatches } from '../../src/platform/lifecycle/batched-delete.js';
import { forkEm, type Orm } from '../../src/platform/db/orm.js';
import { backfillPositions, sequenceAll } from '../../src/platform/events/event-sequencer.js';
import { readStreamAfter } from '../../src/platform/events/stream-order.js';
import { openBeforeMigration } from '../support/database-before-migration.js';
import type { TestDatabase } from '../support/test-database.js';

/**
 * Migrations over data a database already holds, on one database taken up through them in order (one database and
 * one run of the earlier migrations for all of them):
 * - issue 33, N10: the organisation number becomes one merchant's. A database that already has duplicates keeps
 *   every merchant: the oldest keeps the number, each newer one is marked `duplicate_of` it, and a PSP's signups stay
 *   apart;
 * - issue 33 and 36 (README, Data lifecycle): existing events get their positions in bounded batches after the
 *   migration, not in one statement inside it; the attempt log's contract step moves what the old table still holds
 *   into its days and leaves the old name as an empty view, on which the release before it still reads and prunes.
 */
const BEFORE = 'Migration20261127030000DeliveryLeases';
const ORG_NUMBER = 'Migration20261204100000MerchantOrgNumber';
const POSITIONS = 'Migration20261204230000EventPositions';
const EXPAND = 'Migration20261205040000DataLifecycle';
const CONTRACT = 'Migration20261205060000AttemptLogContract';
const MSN = '123456';
const DAY_MS = 24 * 60 * 60 * 1000;

let db: TestDatabase;
let orm: Orm;
const em = () => forkEm(orm);
const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) => em().execute<T[]>(query, params);
/**
 * Events as the outbox holds them. `old` ones carry no transaction id, as events from before it was kept: which
 * events of a transaction ended before the migration are the sequencer's depends on the oldest transaction running on
 * the whole server then (other databases' included), so only these are surely the backfill's.
 */
const insertEvents = (n: number, old: boolean) =>
  sql<{ id: string | number }>(
    `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at, xid)
     select 'payment', 'p-' || g, '${MSN}', 'epayments.payment.created.v1', '{}', now(), ${old ? 'null' : 'pg_current_xact_id()'}
     from generate_series(1, ${n}) g returning id`,
  );

beforeAll(async () => {
  ({ db, orm } = await openBeforeMigration(CONTRACT, BEFORE));
});
afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

test('existing duplicates: the oldest keeps the number, the newer ones are kept and marked; a PSP’s signups stay apart', async () => {
  const [oldest, newer, newest, other, signedUp] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const merchant = (id: string, orgNumber: string, createdAt: string) =>
    sql(`insert into merchant (id, name, org_number, created_at) values (?, 'Nytt Firma AS', ?, ?)`, [id, orgNumber, createdAt]);
  await merchant(newer, '920000029', '2026-02-01T00:00:00Z');
  await merchant(oldest, '920000029', '2026-01-01T00:00:00Z');
  await merchant(newest, '920000029', '2026-03-01T00:00:00Z');
  await merchant(other, '920000037', '2026-03-01T00:00:00Z');
  await merchant(signedUp, '920000029', '2025-12-01T00:00:00Z');
  const [psp] = await sql<{ id: string }>(`insert into psp (id, name, created_at) values (?, 'PSP', now()) returning id`, [randomUUID()]);
  await sql(`insert into sales_unit (msn, merchant_id, name, created_at) values ('300009', ?, 'Signed up', now())`, [signedUp]);
  await sql(
    `insert into psp_signup_merchant (msn, psp_id, merchant_id, organization_number, company_name, company_email, name, logo, address,
       status, created_at, updated_at)
     values ('300009', ?, ?, '920000029', 'Nytt Firma AS', 'a@example.com', 'Signed up', 'x', '{}', 'ACTIVE', now(), now())`,
    [psp!.id, signedUp],
  );

  await orm.migrator.up({ to: ORG_NUMBER });

  const rows = await sql<{ id: string; duplicate_of: string | null; signed_up_by_psp: boolean }>(
    `select id, duplicate_of, signed_up_by_psp from merchant order by created_at, id`,
  );
  expect(rows).toEqual(
    expect.arrayContaining([
      { id: signedUp, duplicate_of: null, signed_up_by_psp: true },
      { id: oldest, duplicate_of: null, signed_up_by_psp: false },
      { id: newer, duplicate_of: oldest, signed_up_by_psp: false },
      { id: newest, duplicate_of: oldest, signed_up_by_psp: false },
      { id: other, duplicate_of: null, signed_up_by_psp: false },
    ]),
  );
  expect(rows).toHaveLength(5);
  // From now on the database refuses a second merchant of the number, but not a PSP's signup.
  await expect(merchant(randomUUID(), '920000029', '2026-04-01T00:00:00Z')).rejects.toThrow(/merchant_org_number_key/);
  await sql(`insert into merchant (id, name, org_number, signed_up_by_psp, created_at) values (?, 'x', '920000029', true, now())`, [
    randomUUID(),
  ]);
});

test('existing events get positions equal to their ids in batches, below every event sequenced since', async () => {
  const existing = (await insertEvents(25, true)).map((r) => Number(r.id));
  await orm.migrator.up({ to: POSITIONS });
  // The migration positioned nothing itself.
  expect(await sql('select event_id from event_position')).toEqual([]);
  // An event committed after the migration is the sequencer's: it is placed above every existing one.
  const [fresh] = (await insertEvents(1, false)).map((r) => Number(r.id));
  await sequenceAll(em());
  expect(await sql<{ n: number }>('select count(*)::int as n from event_position')).toEqual([{ n: 1 }]);

  // Three statements of at most 10 events, each committed alone; then nothing is left.
  expect(await backfillPositions(em(), 10)).toBe(3);
  expect(await backfillPositions(em(), 10)).toBe(0);
  const positions = await sql<{ event_id: string | number; position: string | number }>(
    'select event_id, position from event_position order by position',
  );
  expect(positions.slice(0, 25).map((p) => [Number(p.event_id), Number(p.position)])).toEqual(existing.map((id) => [id, id]));
  expect(Number(positions[25]!.event_id)).toBe(fresh);
  expect(Number(positions[25]!.position)).toBeGreaterThan(Math.max(...existing));
  // The one read of the stream (resumes, the events connection) now sees every event, in order.
  const read = await readStreamAfter(em(), { msn: MSN }, { afterPosition: 0, limit: 100 });
  expect(read.map((e) => e.id)).toEqual([...existing, fresh]);
});

test('the contract step moves the old attempts into their days and leaves an empty view the release before reads and prunes', async () => {
  await orm.migrator.up({ to: EXPAND });
  const now = Date.now();
  // One attempt in a day the log has (today) and one 20 days ago, which it does not have yet.
  const legacy = await sql<{ id: string | number }>(
    `insert into delivery_attempt_legacy (delivery_id, attempted_at, status_code, duration_ms) values (77, ?, 200, 5), (77, ?, 500, 9)
     returning id`,
    [new Date(now), new Date(now - 20 * DAY_MS)],
  );
  // What the release before reads (every read of attempts is this union) and how it prunes the old table.
  const previousRead = `select id, status_code from (select id, delivery_id, status_code from delivery_attempt
    union all select id, delivery_id, status_code from delivery_attempt_legacy) a where delivery_id = 77 order by id`;
  const previousOldTable = { table: 'delivery_attempt_legacy', key: 'id', keyType: 'bigint', condition: 'attempted_at < ?' } as const;
  const before = await sql(previousRead);
  expect(before).toHaveLength(2);

  await orm.migrator.up({ to: CONTRACT });
  const moved = await sql<{ id: string | number }>('select id from delivery_attempt where delivery_id = 77 order by id');
  expect(moved.map((r) => Number(r.id))).toEqual(legacy.map((r) => Number(r.id)).sort((a, b) => a - b));
  const day = new Date(now - 20 * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '');
  expect(
    await sql(`select 1 as attached from pg_inherits where inhrelid = ?::regclass and inhparent = 'delivery_attempt'::regclass`, [
      `delivery_attempt_p${day}`,
    ]),
  ).toEqual([{ attached: 1 }]);
  expect(await sql(`select relkind from pg_class where relname = 'delivery_attempt_legacy'`)).toEqual([{ relkind: 'v' }]);
  // The release before, still serving: its reads give each attempt once, its prune of the old table finds nothing.
  expect(await sql(previousRead)).toEqual(before);
  const future = new Date(now + DAY_MS);
  expect(await countDoomed(em(), previousOldTable, future)).toBe(0);
  expect(await deleteInBatches(em(), previousOldTable, future, 100)).toBe(0);
  expect(await sql('select count(*)::int as n from delivery_attempt where delivery_id = 77')).toEqual([{ n: 2 }]);
});
