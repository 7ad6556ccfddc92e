import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { MerchantClient, MERCHANT_A, newReference, paymentBody } from '../support/merchant-client.js';
import { buildService, ServiceProcess, type BuiltService } from '../support/service-process.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// The service as a real process, SIGKILLed at random moments under load: only what PostgreSQL committed survives.
const describeOnPostgres = onPostgres ? describe : describe.skip;

const KILLS = 12;
/** Kills at indices where the next run is also killed while it starts (migrations, seed), before it serves. */
const STARTUP_KILL_AT = new Set([3, 8]);
const CLIENTS = 8;
const EVENT_NAMES = ['CREATED', 'ABORTED', 'EXPIRED', 'CANCELLED', 'CAPTURED', 'REFUNDED', 'AUTHORIZED', 'TERMINATED'];
const WEBHOOK_PATH = '/crash';

type Kind = 'create' | 'approve' | 'capture' | 'refund' | 'cancel';

interface ExpectedEvent {
  name: string;
  amount: number;
  key: string | null;
}

/** What a payment must be, computed by the client alone from the answers it got (one client owns each payment). */
interface PaymentModel {
  reference: string;
  amount: number;
  state: 'CREATED' | 'AUTHORIZED' | 'TERMINATED';
  authorized: number;
  captured: number;
  cancelled: number;
  refunded: number;
  events: ExpectedEvent[];
  /** An answer disagreed with the model: the model no longer predicts this payment (reported as a mismatch). */
  diverged: boolean;
}

/** A request with its final answer, after every retry its unanswered attempts needed. */
interface Operation {
  kind: Kind;
  reference: string;
  key: string | null;
  path: string;
  body: unknown;
  status: number;
  response: unknown;
  /** Attempts that got no answer: the connection was cut by a kill, or the service was down. */
  unanswered: number;
  /** When the last of them ended (about when the service died), in epoch milliseconds. */
  cutOffAt: number;
}

interface Answer {
  status: number;
  body: unknown;
}

/**
 * How long one request is retried before the run fails, counted from when it was first sent or from the last kill,
 * whichever is later. While the kills go on, a loaded machine can take longer to start an instance than the instance
 * then lives, so a request can meet many dead or dying instances in a row and still be right; once the last instance
 * serves for good, every request must get its final answer.
 */
const ANSWER_WITHIN_MS = 60_000;
/** How long the delivery of the backlog may go without progress before the run fails. */
const STALL_MS = 30_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Refund amounts the test environment refuses (FACTS §14.5); payments here are 1,000 minor units or more, so no approval trigger. */
const REFUND_TRIGGERS = [123, 124];
const randInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[key] : undefined;
  return current;
}

/** The public error code of a problem body (`extraDetails[{name: "ErrorCode", reason}]`). */
function errorCode(body: unknown): string | undefined {
  const details = at(body, 'extraDetails');
  if (!Array.isArray(details)) return undefined;
  const entry: unknown = details.find((d: unknown) => at(d, 'name') === 'ErrorCode');
  const reason = at(entry, 'reason');
  return typeof reason === 'string' ? reason : undefined;
}

function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return text;
  }
}

/** Where the clients send requests: the base URL of the running instance, or a wait while there is none. */
class Gateway {
  private baseUrl: string | undefined;
  private waiting: (() => void)[] = [];

  open(baseUrl: string): void {
    this.baseUrl = baseUrl;
    for (const resume of this.waiting.splice(0)) resume();
  }

  close(): void {
    this.baseUrl = undefined;
  }

  async url(): Promise<string> {
    while (this.baseUrl === undefined) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return this.baseUrl;
  }
}

/** The model after `kind` succeeds, or undefined when the service must refuse it (400) in this state. */
function expectedAfter(m: PaymentModel, kind: Kind, value: number, key: string | null): PaymentModel | undefined {
  const after: PaymentModel = { ...m, events: [...m.events] };
  if (kind === 'approve') {
    if (m.state !== 'CREATED') return undefined;
    after.state = 'AUTHORIZED';
    after.authorized = m.amount;
    after.events.push({ name: 'AUTHORIZED', amount: m.amount, key: null });
  } else if (kind === 'capture') {
    if (m.state !== 'AUTHORIZED' || m.cancelled > 0 || value > m.authorized - m.captured - m.cancelled) return undefined;
    after.captured += value;
    after.events.push({ name: 'CAPTURED', amount: value, key });
  } else if (kind === 'refund') {
    // 123 and 124 are the test environment's refund triggers (README "Failure triggers"): refused whatever is left.
    if (m.state !== 'AUTHORIZED' || value > m.captured - m.refunded || REFUND_TRIGGERS.includes(value)) return undefined;
    after.refunded += value;
    after.events.push({ name: 'REFUNDED', amount: value, key });
  } else if (kind === 'cancel') {
    if (m.state === 'CREATED') {
      after.state = 'TERMINATED';
      after.cancelled = m.amount;
      after.events.push({ name: 'TERMINATED', amount: m.amount, key });
    } else if (m.state === 'AUTHORIZED' && m.cancelled === 0 && m.captured < m.authorized) {
      after.cancelled = m.authorized - m.captured;
      after.events.push({ name: 'CANCELLED', amount: after.cancelled, key });
    } else return undefined;
  }
  return after;
}

/** A random amount for a capture or refund: mostly one that fits what is left, sometimes one that does not. */
function modificationValue(left: number): number {
  return left > 0 && Math.random() < 0.85 ? randInt(1, left) : left + randInt(1, 500);
}

describeOnPostgres('crash: the service SIGKILLed at random points under load', () => {
  let built: BuiltService | undefined;
  let database: TestDatabase | undefined;
  let service: ServiceProcess | undefined;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    built = await buildService();
  }, 300_000);
  afterAll(async () => {
    await service?.kill();
    await receiver.close();
    await database?.drop();
    await built?.remove();
  });

  test('every acknowledged modification is in the database, every aggregate matches its events, every event is delivered', async () => {
    database = await createTestDatabase();
    const databaseUrl = database.databaseUrl!;
    await receiver.start();
    const env = {
      DATABASE_URL: databaseUrl,
      PUBLIC_URL: 'http://127.0.0.1:1',
      PAYGRAPH_ENV: 'test',
      PAYGRAPH_LOG_REQUESTS: 'false',
      PAYGRAPH_JOB_INTERVAL_MS: '50',
      // This one instance also runs the outbox dispatcher and the webhook deliverer, whatever the caller's environment says.
      PAYGRAPH_RUN_JOBS: 'true',
      // Short webhook timeout (and so lease) and retries: deliveries a killed instance held are retried within seconds.
      PAYGRAPH_WEBHOOK_TIMEOUT_MS: '2000',
      PAYGRAPH_WEBHOOK_FIRST_RETRY_MS: '200',
      PAYGRAPH_WEBHOOK_MAX_RETRY_MS: '1000',
    };
    async function startInstance(): Promise<string> {
      const run = new ServiceProcess(built!, env);
      service = run;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the service did not listen within 30 s:\n${run.output}`)), 30_000);
      });
      try {
        return `http://127.0.0.1:${await Promise.race([run.listening, timeout])}`;
      } finally {
        clearTimeout(timer);
      }
    }

    const gateway = new Gateway();
    gateway.open(await startInstance());
    // The token is signed with the configured key (the built-in test key here), so it outlives every restart.
    const setup = new MerchantClient(await gateway.url());
    const token = await setup.accessToken();
    const registered = await setup.request('POST', '/webhooks/v1/webhooks', {
      url: receiver.url(WEBHOOK_PATH),
      events: EVENT_NAMES.map((name) => `epayments.payment.${name.toLowerCase()}.v1`),
    });
    expect(registered.status).toBe(201);
    receiver.route(WEBHOOK_PATH, String(at(registered.body, 'secret')));

    const operations: Operation[] = [];
    const payments: PaymentModel[] = [];
    const mismatches: string[] = [];
    const serverErrors: string[] = [];
    let inFlightAnswers = 0;
    let stopping = false;
    /** Set when the run failed: the clients and the kill loop give up rather than outlive the test. */
    let aborted = false;
    /** When the last instance started, after the last kill; undefined while the kills go on. */
    let killsEndedAt: number | undefined;
    let kills = 0;
    let startupKills = 0;

    async function send(path: string, body: unknown, key: string | null): Promise<Answer | undefined> {
      const baseUrl = await gateway.url();
      try {
        const res = await fetch(baseUrl + path, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${token}`,
            'Ocp-Apim-Subscription-Key': MERCHANT_A.subscriptionKey,
            'Merchant-Serial-Number': MERCHANT_A.msn,
            'Content-Type': 'application/json',
            ...(key === null ? {} : { 'Idempotency-Key': key }),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        return { status: res.status, body: parseJson(await res.text()) };
      } catch {
        return undefined;
      }
    }

    /** Sends until there is an answer: an attempt cut off by a kill is repeated as is (the same Idempotency-Key). */
    async function perform(kind: Kind, reference: string, path: string, body: unknown, key: string | null): Promise<Operation> {
      let unanswered = 0;
      let cutOffAt = 0;
      let last = 'nothing';
      // An instance lives 0.3 to 1.5 s between kills and takes seconds to start (more on a loaded machine, with
      // sixteen domains migrating and seeding), so a request may meet several dead instances in a row.
      const firstSent = Date.now();
      const giveUpAt = () => (killsEndedAt === undefined ? Infinity : Math.max(firstSent, killsEndedAt) + ANSWER_WITHIN_MS);
      while (Date.now() < giveUpAt()) {
        if (aborted) throw new Error('aborted');
        const answer = await send(path, body, key);
        last = answer ? `${answer.status} ${JSON.stringify(answer.body)}` : 'no answer';
        if (!answer) {
          unanswered++;
          cutOffAt = Date.now();
          await sleep(20);
          continue;
        }
        // The cut-off attempt may still hold its key until PostgreSQL notices the dead connection.
        if (answer.status === 409 && errorCode(answer.body) === '6160') {
          inFlightAnswers++;
          await sleep(50);
          continue;
        }
        if (answer.status >= 500) {
          serverErrors.push(`${kind} ${reference}: ${answer.status} ${JSON.stringify(answer.body)}`);
          await sleep(50);
          continue;
        }
        const operation: Operation = {
          kind,
          reference,
          key,
          path,
          body,
          status: answer.status,
          response: answer.body,
          unanswered,
          cutOffAt,
        };
        operations.push(operation);
        return operation;
      }
      throw new Error(
        `${kind} ${reference} (key ${key}): no final answer within ${ANSWER_WITHIN_MS / 1000} s of the last kill, the last attempt got ${last}`,
      );
    }

    function mismatch(model: PaymentModel, operation: Operation, expected: string): void {
      model.diverged = true;
      mismatches.push(
        `${operation.kind} ${operation.reference} (key ${operation.key}, ${operation.unanswered} unanswered attempts): expected ${expected}, got ${operation.status} ${JSON.stringify(at(operation.response, 'aggregate') ?? operation.response)}`,
      );
    }

    /** Runs one step on a payment, checks the answer against the model and moves the model on. */
    async function step(model: PaymentModel, kind: Kind, value: number): Promise<void> {
      const key = kind === 'approve' ? null : randomUUID();
      const expected = expectedAfter(model, kind, value, key);
      const ref = model.reference;
      const operation =
        kind === 'approve'
          ? await perform(kind, ref, `/epayment/v1/test/payments/${ref}/approve`, { customer: { phoneNumber: '4791234567' } }, null)
          : await perform(
              kind,
              ref,
              `/epayment/v1/payments/${ref}/${kind}`,
              kind === 'cancel' ? {} : { modificationAmount: { currency: 'NOK', value } },
              key,
            );
      if (!expected) {
        if (operation.status !== 400) mismatch(model, operation, '400');
        return;
      }
      if (kind === 'approve') {
        // Force approve takes no idempotency key: a retry after a cut-off attempt that did commit is told the payment is authorized.
        const approvedBefore =
          operation.unanswered > 0 && operation.status === 400 && /is AUTHORIZED/.test(String(at(operation.response, 'detail')));
        if (operation.status !== 200 && !approvedBefore) mismatch(model, operation, '200');
        Object.assign(model, { ...expected, diverged: model.diverged });
        return;
      }
      const aggregate = (name: string) => at(operation.response, 'aggregate', name, 'value');
      const agrees =
        operation.status === 200 &&
        at(operation.response, 'state') === expected.state &&
        aggregate('authorizedAmount') === expected.authorized &&
        aggregate('capturedAmount') === expected.captured &&
        aggregate('cancelledAmount') === expected.cancelled &&
        aggregate('refundedAmount') === expected.refunded;
      if (!agrees) {
        const { state, authorized, captured, cancelled, refunded } = expected;
        mismatch(model, operation, `200 with ${JSON.stringify({ state, authorized, captured, cancelled, refunded })}`);
      }
      Object.assign(model, { ...expected, diverged: model.diverged });
    }

    async function client(): Promise<void> {
      while (!stopping) {
        const amount = randInt(1_000, 50_000);
        const reference = newReference('crash');
        const key = randomUUID();
        const body = paymentBody({ reference, amount: { currency: 'NOK', value: amount } });
        const created = await perform('create', reference, '/epayment/v1/payments', body, key);
        const model: PaymentModel = {
          reference,
          amount,
          state: 'CREATED',
          authorized: 0,
          captured: 0,
          cancelled: 0,
          refunded: 0,
          events: [{ name: 'CREATED', amount, key }],
          diverged: false,
        };
        payments.push(model);
        if (created.status !== 201 || at(created.response, 'reference') !== reference) {
          mismatch(model, created, '201');
          continue;
        }
        // Most payments are approved; the others meet the modifications of a payment nobody approved (cancel terminates it).
        if (Math.random() < 0.85) await step(model, 'approve', 0);
        const steps = randInt(1, 6);
        for (let i = 0; i < steps && !stopping && !model.diverged; i++) {
          const roll = Math.random();
          const capturable = model.state === 'AUTHORIZED' && model.cancelled === 0 ? model.authorized - model.captured : 0;
          if (roll < 0.45) await step(model, 'capture', modificationValue(capturable));
          else if (roll < 0.8) await step(model, 'refund', modificationValue(model.captured - model.refunded));
          else await step(model, 'cancel', 0);
        }
      }
    }

    async function chaos(): Promise<void> {
      for (let i = 0; i < KILLS && !aborted; i++) {
        await sleep(randInt(300, 1_500));
        gateway.close();
        await service!.kill();
        kills++;
        if (STARTUP_KILL_AT.has(i)) {
          const doomed = new ServiceProcess(built!, env);
          service = doomed;
          await sleep(randInt(50, 700));
          await doomed.kill();
          startupKills++;
        }
        gateway.open(await startInstance());
      }
      killsEndedAt = Date.now();
      // Some load on the last instance, then the clients finish the request they are in.
      await sleep(1_000);
      stopping = true;
    }

    const killing = chaos();
    try {
      await Promise.all([killing, ...Array.from({ length: CLIENTS }, () => client())]);
    } catch (error) {
      aborted = true;
      stopping = true;
      await killing.catch(() => undefined);
      throw error;
    }

    // Acknowledged requests repeated with their key after all the crashes: the first answer again, nothing done twice.
    const keyed = operations.filter((o) => o.key !== null);
    const sample = [...keyed.filter((o) => o.unanswered > 0), ...keyed.filter((o) => o.unanswered === 0 && Math.random() < 0.1)].slice(
      0,
      400,
    );
    const replayMismatches: string[] = [];
    for (let i = 0; i < sample.length; i += CLIENTS) {
      await Promise.all(
        sample.slice(i, i + CLIENTS).map(async (original) => {
          const again = await send(original.path, original.body, original.key);
          const same =
            again !== undefined &&
            again.status === original.status &&
            (original.status === 400
              ? errorCode(again.body) === errorCode(original.response)
              : JSON.stringify(again.body) === JSON.stringify(original.response));
          if (!same)
            replayMismatches.push(
              `${original.kind} ${original.reference} key ${original.key}: first ${original.status} ${JSON.stringify(original.response)}, replay ${again?.status} ${JSON.stringify(again?.body)}`,
            );
        }),
      );
    }

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const paymentRows = (
        await db.query<Record<string, string>>(
          `select id, reference, state, amount, authorized_amount, captured_amount, cancelled_amount, refunded_amount from payment where msn = $1`,
          [MERCHANT_A.msn],
        )
      ).rows;
      const eventRows = (
        await db.query<Record<string, string | null>>(
          `select id, payment_id, reference, name, amount, idempotency_key from payment_event order by id`,
        )
      ).rows;

      // Every acknowledged modification is there, exactly once, and nothing else is: state, aggregate and event log
      // equal what the answers the clients got imply.
      const rowsByReference = new Map(paymentRows.map((row) => [row.reference!, row]));
      const eventsByPayment = new Map<string, Record<string, string | null>[]>();
      for (const event of eventRows) eventsByPayment.set(event.payment_id!, [...(eventsByPayment.get(event.payment_id!) ?? []), event]);
      const differences: string[] = [];
      for (const model of payments) {
        const row = rowsByReference.get(model.reference);
        const actual = row && {
          state: row.state,
          authorized: Number(row.authorized_amount),
          captured: Number(row.captured_amount),
          cancelled: Number(row.cancelled_amount),
          refunded: Number(row.refunded_amount),
          events: (eventsByPayment.get(row.id!) ?? []).map((e) => ({ name: e.name, amount: Number(e.amount), key: e.idempotency_key })),
        };
        const expected = {
          state: model.state,
          authorized: model.authorized,
          captured: model.captured,
          cancelled: model.cancelled,
          refunded: model.refunded,
          events: model.events,
        };
        if (!model.diverged && JSON.stringify(actual) !== JSON.stringify(expected))
          differences.push(`${model.reference}: expected ${JSON.stringify(expected)}, database has ${JSON.stringify(actual)}`);
      }
      const known = new Set(payments.map((p) => p.reference));
      const phantoms = paymentRows.filter((row) => !known.has(row.reference!)).map((row) => row.reference);

      // Independently of the model: each aggregate is the sum of its payment's events, within the invariants.
      const offAggregates: string[] = [];
      for (const row of paymentRows) {
        const events = eventsByPayment.get(row.id!) ?? [];
        const sum = (...names: string[]) => events.filter((e) => names.includes(e.name!)).reduce((s, e) => s + Number(e.amount), 0);
        const [authorized, captured, cancelled, refunded] = [
          Number(row.authorized_amount),
          Number(row.captured_amount),
          Number(row.cancelled_amount),
          Number(row.refunded_amount),
        ];
        const consistent =
          authorized === sum('AUTHORIZED') &&
          captured === sum('CAPTURED') &&
          refunded === sum('REFUNDED') &&
          cancelled === sum('CANCELLED', 'TERMINATED') &&
          refunded <= captured &&
          (row.state === 'TERMINATED'
            ? authorized === 0 && captured === 0 && cancelled === Number(row.amount)
            : captured + cancelled <= authorized);
        if (!consistent)
          offAggregates.push(
            `${row.reference} ${row.state}: authorized ${authorized}, captured ${captured}, cancelled ${cancelled}, refunded ${refunded}; events ${JSON.stringify(events.map((e) => [e.name, Number(e.amount)]))}`,
          );
      }

      // issue 13: the ledger rows were written with their events, so no kill leaves one without the other: per
      // payment, the capture and refund rows are its CAPTURED and REFUNDED events, and each adds up (gross - fee).
      const ledgerRows = (
        await db.query<Record<string, string | null>>(
          `select payment_id, transaction_type, gross_amount, fee, ledger_amount from ledger_transaction where payment_id is not null`,
        )
      ).rows;
      const ledgerByPayment = new Map<string, Record<string, string | null>[]>();
      for (const row of ledgerRows) ledgerByPayment.set(row.payment_id!, [...(ledgerByPayment.get(row.payment_id!) ?? []), row]);
      const offLedger: string[] = [];
      for (const row of paymentRows) {
        const events = eventsByPayment.get(row.id!) ?? [];
        const rows = ledgerByPayment.get(row.id!) ?? [];
        const amounts = (list: number[]) => JSON.stringify([...list].sort((a, b) => a - b));
        const eventAmounts = (name: string) => amounts(events.filter((e) => e.name === name).map((e) => Number(e.amount)));
        const rowAmounts = (type: string, sign: number) =>
          amounts(rows.filter((r) => r.transaction_type === type).map((r) => sign * Number(r.gross_amount)));
        const addsUp = rows.every((r) => Number(r.ledger_amount) === Number(r.gross_amount) - Number(r.fee));
        if (eventAmounts('CAPTURED') !== rowAmounts('capture', 1) || eventAmounts('REFUNDED') !== rowAmounts('refund', -1) || !addsUp)
          offLedger.push(
            `${row.reference}: events ${JSON.stringify(events.map((e) => [e.name, Number(e.amount)]))}, ledger ${JSON.stringify(rows)}`,
          );
      }

      const first20 = (list: string[]) => (list.length <= 20 ? list : [...list.slice(0, 20), `and ${list.length - 20} more`]);
      expect({
        mismatches: first20(mismatches),
        replayMismatches: first20(replayMismatches),
        serverErrors: first20(serverErrors),
        differences: first20(differences),
        phantoms: first20(phantoms),
        offAggregates: first20(offAggregates),
        offLedger: first20(offLedger),
      }).toEqual({
        mismatches: [],
        replayMismatches: [],
        serverErrors: [],
        differences: [],
        phantoms: [],
        offAggregates: [],
        offLedger: [],
      });

      // Every committed event reaches the receiver (at least once, the event id header being the payment_event id).
      const eventIds = eventRows.map((e) => e.id!);
      const distinctReceived = () => new Set(receiver.at(WEBHOOK_PATH).map((r) => r.eventId));
      // The backlog drains at the per-receiver cap (RECEIVER_CONCURRENCY), so how long it takes depends on
      // the machine; what must not happen is a stall: the run fails when 30 s pass without one more event arriving.
      for (let deadline = Date.now() + STALL_MS, lastMissing = Infinity; ;) {
        const received = distinctReceived();
        const missing = eventIds.filter((id) => !received.has(id));
        if (missing.length === 0) break;
        if (missing.length < lastMissing) [lastMissing, deadline] = [missing.length, Date.now() + STALL_MS];
        if (Date.now() > deadline) {
          const { rows } = await db.query(
            `select e.id, e.reference, e.name, e.dispatched_at, d.status, d.attempt_count, d.lease_until, d.next_attempt_at
             from payment_event e left join delivery d on d.event_id = e.id where e.id = any($1::bigint[]) order by e.id limit 20`,
            [missing],
          );
          throw new Error(
            `${missing.length} of ${eventIds.length} committed events never reached the receiver (none arrived for ${STALL_MS / 1000} s), e.g. ${JSON.stringify(rows)}`,
          );
        }
        await sleep(100);
      }
      const eventsById = new Map(eventRows.map((e) => [e.id!, e]));
      const deliveries = receiver.at(WEBHOOK_PATH);
      const wrongDeliveries = deliveries
        .filter((r) => {
          const event = eventsById.get(r.eventId);
          return (
            !event ||
            !r.verified ||
            at(r.body, 'reference') !== event.reference ||
            at(r.body, 'name') !== event.name ||
            at(r.body, 'amount', 'value') !== Number(event.amount) ||
            at(r.body, 'idempotencyKey') !== event.idempotency_key
          );
        })
        .map((r) => `${r.eventId} ${JSON.stringify(r.body)} verified ${r.verified}`);
      // One payment's events reach the endpoint in order (a repeat of an earlier one after a crash aside).
      const firstArrivals = new Map<string, number[]>();
      const seen = new Set<string>();
      for (const r of deliveries) {
        if (seen.has(r.eventId)) continue;
        seen.add(r.eventId);
        const reference = String(at(r.body, 'reference'));
        firstArrivals.set(reference, [...(firstArrivals.get(reference) ?? []), Number(r.eventId)]);
      }
      const outOfOrder = [...firstArrivals]
        .filter(([, ids]) => ids.some((id, i) => i > 0 && id < ids[i - 1]!))
        .map(([ref, ids]) => `${ref}: ${ids}`);
      expect({ wrongDeliveries: first20(wrongDeliveries), outOfOrder: first20(outOfOrder) }).toEqual({
        wrongDeliveries: [],
        outOfOrder: [],
      });

      // And the service's own records agree: every event fanned out once, every delivery recorded as delivered.
      for (const deadline = Date.now() + STALL_MS; ;) {
        const { rows } = await db.query<{ undispatched: number; deliveries: number; open: number }>(
          `select (select count(*)::int from payment_event where dispatched_at is null) as undispatched,
                  (select count(*)::int from delivery where kind = 'webhook') as deliveries,
                  (select count(*)::int from delivery where kind = 'webhook' and status <> 'delivered') as open`,
        );
        const state = rows[0]!;
        if (state.undispatched === 0 && state.deliveries === eventIds.length && state.open === 0) break;
        if (Date.now() > deadline) throw new Error(`delivery records incomplete: ${JSON.stringify(state)} for ${eventIds.length} events`);
        await sleep(100);
      }

      // How many cut-off attempts had committed before the kill (the retry replayed them) rather than not at all.
      const cutOff = operations.filter(
        (o) => o.unanswered > 0 && ((o.status >= 200 && o.status < 300) || (o.kind === 'approve' && o.status === 400)),
      );
      const { rows: records } = await db.query<{ idempotency_key: string; created_at: Date }>(
        `select idempotency_key, created_at from idempotency_record where idempotency_key = any($1::text[])`,
        [cutOff.filter((o) => o.key !== null).map((o) => o.key)],
      );
      const recordedAt = new Map(records.map((r) => [r.idempotency_key, r.created_at.getTime()]));
      const committedBeforeKill = cutOff.filter((o) =>
        o.key === null ? o.status === 400 : (recordedAt.get(o.key) ?? Infinity) <= o.cutOffAt,
      ).length;
      const acknowledged = operations.filter((o) => o.status >= 200 && o.status < 300).length;
      process.stdout.write(
        `crash: ${kills} kills under load (+${startupKills} during start-up), ${operations.length} requests answered ` +
          `(${acknowledged} acknowledged, ${operations.filter((o) => o.unanswered > 0).length} resolved by a retry after a cut-off attempt, ` +
          `${committedBeforeKill} of which had committed before the kill, ${inFlightAnswers} "in flight" answers on the way), ${sample.length} replays, ${payments.length} payments, ` +
          `${eventIds.length} events, ${deliveries.length} deliveries (${deliveries.length - seen.size} duplicates)\n`,
      );
    } finally {
      await db.end();
    }
    // Thirteen starts of the service, each seconds of CPU: with the other core busy they take minutes.
  }, 480_000);
});
