import pg from 'pg';
import { forkEm } from '../../src/platform/db/orm.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { useSubscriptions } from '../support/app-subscriptions.js';
import { eventually, type Subscriber } from '../support/subscriber.js';
import { onPostgres } from '../support/test-database.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * issue 33, N1 and N8: a resume follows commit order, not id order, and pages forward however far back it starts.
 * Both subscriptions that resume (`paymentEvents`, `streamEvents`) go through graphql-ws here.
 */
const FIELDS = {
  paymentEvents: `subscription($after: ID, $reference: String) {
    paymentEvents(after: $after, reference: $reference) { event { eventId reference } }
  }`,
  streamEvents: `subscription($after: ID) { streamEvents(after: $after, streamType: "payment") { eventId reference } }`,
} as const;
type Field = keyof typeof FIELDS;
interface Received {
  eventId: string;
  reference: string | null;
}

let t: TestApp;
let merchant: MerchantClient;
const subscriptions = useSubscriptions(() => t);

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(() => t.close());

const subscribe = (field: Field, variables: Record<string, unknown>): Promise<Subscriber> =>
  subscriptions.subscribe(merchant, FIELDS[field], variables);

function received(field: Field, subscriber: Subscriber): Received[] {
  if (subscriber.failure) throw new Error(`subscription failed: ${JSON.stringify(subscriber.failure)}`);
  return subscriber.results.map((r) => (field === 'paymentEvents' ? r.data.paymentEvents.event : r.data.streamEvents));
}

/** Another event of the payment whose newest event `template` is, as the recording path writes one (raw SQL). */
const COPY = `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at)
    select stream_type, stream_id, msn, 'epayments.payment.captured.v1', payload || '{"name": "CAPTURED"}', occurred_at
    from domain_event where id = $1
    returning id`;

async function newestEventId(reference: string): Promise<number> {
  const rows = await forkEm(t.app.services.orm).execute<{ id: unknown }[]>(
    `select max(id) as id from domain_event where payload ->> 'reference' = ?`,
    [reference],
  );
  return Number(rows[0]!.id);
}

// Only PostgreSQL commits out of id order: PGlite serves one connection, so one transaction at a time, and a lower id
// can never commit after a higher one there. The rule that makes this hold (positions given after commit) runs on
// both; the rest of this file runs on both.
const testOnPostgres = onPostgres ? test.each : test.skip.each;

testOnPostgres(['paymentEvents', 'streamEvents'] as Field[])(
  '%s: a lower id committing after a higher one was delivered reaches a subscriber resuming after the higher, once',
  async (field) => {
    const reference = newReference('late');
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    const template = await newestEventId(reference);
    const live = await subscribe(field, { reference });
    const holder = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
    const other = new pg.Client({ connectionString: t.app.services.config.databaseUrl });
    await holder.connect();
    await other.connect();
    try {
      // The lower id is drawn first and its transaction held open; a higher id commits and is delivered.
      await holder.query('begin');
      const lower = String((await holder.query(COPY, [template])).rows[0].id);
      const higher = String((await other.query(COPY, [template])).rows[0].id);
      expect(Number(higher)).toBeGreaterThan(Number(lower));
      await eventually(() => received(field, live).some((e) => e.eventId === higher), 'the higher event, live');
      // The payment's CREATED event (`template`) committed just before the subscription; whether the bus's read of it
      // ran before or after the subscription registered is a race this test is not about, so it is left out.
      expect(
        received(field, live)
          .map((e) => e.eventId)
          .filter((id) => id !== String(template)),
      ).toEqual([higher]);
      await subscriptions.close(live);

      // The client resumes after the last event it got, while the lower one is still uncommitted.
      const resumed = await subscribe(field, { reference, after: higher });
      await holder.query('commit');
      await eventually(() => received(field, resumed).some((e) => e.eventId === lower), 'the lower event, after its commit');
      const sentinel = String((await other.query(COPY, [template])).rows[0].id);
      await eventually(() => received(field, resumed).some((e) => e.eventId === sentinel), 'the next event');
      expect(received(field, resumed).map((e) => e.eventId)).toEqual([lower, sentinel]);
      // The events connection reads by the same rule: oldest first after the higher id, the same two.
      const read = await merchant.graphql(
        'query($e: ID) { events(order: OLDEST_FIRST, afterEventId: $e, filter: { streamType: "payment" }) { edges { node { eventId } } } }',
        { e: higher },
      );
      expect(read.body.data.events.edges.map((edge: { node: Received }) => edge.node.eventId)).toEqual([lower, sentinel]);

      // Resuming after the lower one now (it was delivered after the higher one): only what followed it.
      const again = await subscribe(field, { reference, after: lower });
      await eventually(() => received(field, again).length >= 1, 'the replay');
      expect(received(field, again).map((e) => e.eventId)).toEqual([sentinel]);
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
      await other.end();
    }
  },
);

test.each(['paymentEvents', 'streamEvents'] as Field[])(
  '%s: a resume from 1,200 events back pages forward, in order, each once, then goes live',
  async (field) => {
    const reference = newReference('deep');
    expect((await merchant.createPayment({ reference })).status).toBe(201);
    const start = String(await newestEventId(reference));
    const prefix = `${reference}-`;
    // 1,200 payments' CREATED events committed in one transaction, as if another instance had written them.
    await commitCreatedEvents(forkEm(t.app.services.orm), prefix, 1_200);
    const resumed = await subscribe(field, { after: start });
    const last = newReference('deep-live');
    expect((await merchant.createPayment({ reference: last })).status).toBe(201);
    await eventually(() => received(field, resumed).some((e) => e.reference === last), 'the live event after the replay');
    const references = received(field, resumed).map((e) => e.reference);
    expect(references).toEqual([...Array.from({ length: 1_200 }, (_, i) => `${prefix}${i + 1}`), last]);
    const ids = received(field, resumed).map((e) => Number(e.eventId));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(resumed.results.every((r) => r.errors === undefined)).toBe(true);
  },
);

test.each(['paymentEvents', 'streamEvents'] as Field[])(
  '%s: an after that is no event of the sales unit is refused, naming after',
  async (field) => {
    const answer = await subscriptions.refusal(merchant, FIELDS[field], { after: '999999999' });
    expect(answer).toContain('after is not an event of this sales unit');
    expect(answer).toContain('BAD_USER_INPUT');
  },
);
