import { forkEm } from '../../src/platform/db/orm.js';
import { timeOrderedId } from '../../src/platform/db/time-ordered-id.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// issue 36: payments are keyed by UUIDs of version 7, which grow with the time they are made, so a new payment's key
// lands on the last pages of the indexes that lead with it instead of a random one (bench/README.md, "Time-ordered
// payment ids", has the write-ahead log per created payment that this is for).
let t: TestApp;
let merchant: MerchantClient;

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const VERSION_7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The Unix milliseconds in an id's first 48 bits. */
const millisecondsOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);

test('a payment created through the API is stored under a version 7 id of the moment it was written, later payments sorting after earlier ones', async () => {
  const references: string[] = [];
  const before = Date.now();
  for (let i = 0; i < 5; i++) {
    const reference = newReference('ids');
    const created = await merchant.createPayment({ reference });
    expect(created.status).toBe(201);
    references.push(reference);
  }
  const after = Date.now();
  const rows = await forkEm(t.app.services.orm).execute<{ id: string; reference: string }[]>(
    `select id::text, reference from payment where reference in (?) order by id`,
    [references],
  );
  // Ordered by id, they are in the order they were created: sorting by key is sorting by time of writing.
  expect(rows.map((row) => row.reference)).toEqual(references);
  for (const { id } of rows) {
    expect(id).toMatch(VERSION_7);
    expect(millisecondsOf(id)).toBeGreaterThanOrEqual(before);
    expect(millisecondsOf(id)).toBeLessThanOrEqual(after);
  }
  // Its log is the stream of that id.
  const streams = await forkEm(t.app.services.orm).execute<{ stream_id: string }[]>(
    `select distinct stream_id from domain_event where stream_type = 'payment' and stream_id in (?)`,
    [rows.map((row) => row.id)],
  );
  expect(streams).toHaveLength(rows.length);
});

test('ids of one millisecond differ in their 74 random bits; an id carries the time it is given, and a later millisecond sorts after', () => {
  const ids = Array.from({ length: 2_000 }, () => timeOrderedId(1_765_000_000_000));
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) {
    expect(id).toMatch(VERSION_7);
    expect(millisecondsOf(id)).toBe(1_765_000_000_000);
  }
  const later = timeOrderedId(1_765_000_000_001);
  expect(ids.every((id) => id < later)).toBe(true);
  expect(timeOrderedId(0x0123_4567_89ab)).toMatch(/^01234567-89ab-7/);
});
