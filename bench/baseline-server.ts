/**
 * The baseline: a bare node:http server with `pg`, running the same SQL statements in the same transactions as
 * Paygraph for each benchmarked operation, with no framework, validation or ORM. Paygraph's figures are reported
 * as ratios to this server measured in the same run.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { minimalCreate } from './minimal-create.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const MSN = '123456';
const CLIENT = 'test-client-123456';

interface Money {
  currency: string;
  value: number;
}

/** The fields the benchmark's requests carry; the baseline trusts its load generator and validates nothing. */
interface RequestBody {
  reference: string;
  amount: Money;
  modificationAmount: Money;
  userFlow: string;
  returnUrl: string;
  paymentDescription?: string;
}

/** A `payment` or `payment_event` row as `pg` returns it (bigint columns as strings). */
type Row = Record<string, string & Date>;

/** A payment event's outbox payload, as Paygraph's recorder writes it (payment-event.types.ts). */
function eventPayload(reference: string, name: string, currency: string, value: number, idempotencyKey: string): string {
  return JSON.stringify({
    reference,
    pspReference: String(randomInt(1e9, 1e10)),
    name,
    amount: { currency, value },
    idempotencyKey,
    success: true,
  });
}

async function body(req: IncomingMessage): Promise<RequestBody> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as RequestBody;
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function inTransaction<T>(run: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await run(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}

async function idempotencyGate(client: pg.PoolClient, operation: string, key: string): Promise<void> {
  await client.query('select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked', [`${CLIENT}|${MSN}|${operation}|${key}`]);
  await client.query(
    'select * from idempotency_record where client_id = $1 and msn = $2 and operation = $3 and idempotency_key = $4 limit 1',
    [CLIENT, MSN, operation, key],
  );
}

async function createPayment(req: IncomingMessage): Promise<unknown> {
  const input = await body(req);
  const key = String(req.headers['idempotency-key']);
  return inTransaction(async (client) => {
    await idempotencyGate(client, 'payment.create', key);
    const id = randomUUID();
    const now = new Date();
    const token = randomBytes(24).toString('base64url');
    await client.query(
      `insert into payment (id, msn, reference, psp_reference, state, currency, amount, payment_method_type, user_flow, customer_interaction,
        return_url, payment_description, approval_token, expires_at, created_at, updated_at)
       values ($1, $2, $3, $4, 'CREATED', $5, $6, 'WALLET', $7, 'CUSTOMER_NOT_PRESENT', $8, $9, $10, $11, $12, $12)`,
      [
        id,
        MSN,
        input.reference,
        String(randomInt(1e9, 1e10)),
        input.amount.currency,
        input.amount.value,
        input.userFlow,
        input.returnUrl,
        input.paymentDescription ?? null,
        token,
        new Date(now.getTime() + 600_000),
        now,
      ],
    );
    await client.query(
      `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at)
       values ('payment', $1, $2, 'epayments.payment.created.v1', $3, $4) returning id`,
      [id, MSN, eventPayload(input.reference, 'CREATED', input.amount.currency, input.amount.value, key), now],
    );
    const response = { redirectUrl: `http://localhost/wallet/landing?token=${token}`, reference: input.reference };
    await client.query(
      'insert into idempotency_record (client_id, msn, operation, idempotency_key, request_digest, outcome, created_at) values ($1, $2, $3, $4, $5, $6, $7) returning id',
      [CLIENT, MSN, 'payment.create', key, '0'.repeat(64), JSON.stringify({ ok: true, value: response }), now],
    );
    return response;
  });
}

function aggregate(row: Row) {
  const money = (value: unknown) => ({ currency: row.currency, value: Number(value) });
  return {
    authorizedAmount: money(row.authorized_amount),
    cancelledAmount: money(row.cancelled_amount),
    capturedAmount: money(row.captured_amount),
    refundedAmount: money(row.refunded_amount),
  };
}

async function capturePayment(req: IncomingMessage, reference: string): Promise<unknown> {
  const input = await body(req);
  const key = String(req.headers['idempotency-key']);
  return inTransaction(async (client) => {
    await idempotencyGate(client, 'payment.capture', key);
    const { rows } = await client.query('select * from payment where msn = $1 and reference = $2 limit 1 for update', [MSN, reference]);
    const row = rows[0];
    const now = new Date();
    await client.query(
      `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at)
       values ('payment', $1, $2, 'epayments.payment.captured.v1', $3, $4) returning id`,
      [row.id, MSN, eventPayload(reference, 'CAPTURED', row.currency, input.modificationAmount.value, key), now],
    );
    row.captured_amount = Number(row.captured_amount) + input.modificationAmount.value;
    await client.query('update payment set captured_amount = $1, updated_at = $2 where id = $3', [row.captured_amount, now, row.id]);
    const response = {
      amount: { currency: row.currency, value: Number(row.amount) },
      state: row.state,
      aggregate: aggregate(row),
      pspReference: row.psp_reference,
      reference,
    };
    await client.query(
      'insert into idempotency_record (client_id, msn, operation, idempotency_key, request_digest, outcome, created_at) values ($1, $2, $3, $4, $5, $6, $7) returning id',
      [CLIENT, MSN, 'payment.capture', key, '0'.repeat(64), JSON.stringify({ ok: true, value: response }), now],
    );
    return response;
  });
}

async function getPayment(reference: string): Promise<unknown> {
  const { rows } = await pool.query('select * from payment where msn = $1 and reference = $2 limit 1', [MSN, reference]);
  const row = rows[0];
  return {
    aggregate: aggregate(row),
    amount: { currency: row.currency, value: Number(row.amount) },
    state: row.state,
    paymentMethod: { type: row.payment_method_type },
    profile: {},
    pspReference: row.psp_reference,
    reference,
  };
}

async function paymentPage(first: number): Promise<unknown> {
  const { rows } = await pool.query('select * from payment where msn = $1 order by created_at desc, id desc limit $2', [MSN, first + 1]);
  const page = rows.slice(0, first);
  // The service's statement: the first page (size plus one) of every payment's events at once.
  const events = await pool.query(
    `select * from (
       select payment_event.*, row_number() over (partition by payment_id order by id) as position
       from payment_event where payment_id = any($1)
     ) ranked where position <= $2 order by payment_id, id`,
    [page.map((r) => r.id), 51],
  );
  const byPayment = new Map<string, Row[]>();
  for (const e of events.rows) byPayment.set(e.payment_id, [...(byPayment.get(e.payment_id) ?? []), e]);
  return {
    data: {
      payments: {
        edges: page.map((row) => ({
          node: {
            reference: row.reference,
            state: row.state,
            aggregate: { capturedAmount: { value: Number(row.captured_amount) } },
            events: {
              edges: (byPayment.get(row.id) ?? [])
                .slice(0, 50)
                .map((e) => ({ node: { name: e.name, amount: { value: Number(e.amount) }, timestamp: e.occurred_at.toISOString() } })),
            },
          },
        })),
      },
    },
  };
}

/**
 * A report API page (`GET /report/v1/ledgertransactions`): Paygraph's one statement (the rows of the ledger if the
 * caller's merchant owns it, 1001 of them after the keyset position) and the definition's Transaction body.
 */
async function ledgerTransactionPage(query: URLSearchParams): Promise<unknown> {
  const ledgerId = query.get('ledgerId');
  const { rows } = await pool.query(
    `select t.id, t.transaction_type, to_char(t.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as occurred_at,
       t.ledger_date::text as ledger_date, t.order_id, t.recipient_handle, t.currency, t.gross_amount, t.fee, t.ledger_amount
     from ledger_transaction t where t.ledger_id = (select l.id from ledger l where l.id = $1 and l.merchant_id = $2) and t.id > $3
     order by t.id limit 1001`,
    [ledgerId, query.get('merchantId'), query.get('after') ?? 0],
  );
  const items = rows.slice(0, 1000).map((row: Row) => ({
    transactionId: row.id,
    timestamp: row.occurred_at,
    ledgerDate: row.ledger_date,
    ledgerId,
    transactionType: row.transaction_type,
    orderId: row.order_id,
    currency: row.currency,
    ledgerAmount: Number(row.ledger_amount),
    grossAmount: Number(row.gross_amount),
    fee: Number(row.fee),
    recipientHandle: row.recipient_handle,
  }));
  return { cursor: rows.length > 1000 ? String(items[items.length - 1]!.transactionId) : '', items };
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const capture = /^\/epayment\/v1\/payments\/([^/]+)\/capture$/.exec(url.pathname);
  const get = /^\/epayment\/v1\/payments\/([^/]+)$/.exec(url.pathname);
  let work: Promise<unknown>;
  if (req.method === 'POST' && url.pathname === '/epayment/v1/payments') work = createPayment(req).then((r) => [201, r]);
  else if (req.method === 'POST' && url.pathname === '/minimal/payments')
    work = body(req).then((input) => minimalCreate(pool, { clientId: CLIENT, msn: MSN }, input, String(req.headers['idempotency-key'])));
  else if (req.method === 'POST' && capture) work = capturePayment(req, capture[1]!).then((r) => [200, r]);
  else if (req.method === 'GET' && get) work = getPayment(get[1]!).then((r) => [200, r]);
  else if (req.method === 'POST' && url.pathname === '/page') work = paymentPage(50).then((r) => [200, r]);
  else if (req.method === 'GET' && url.pathname === '/report/v1/ledgertransactions')
    work = ledgerTransactionPage(url.searchParams).then((r) => [200, r]);
  else work = Promise.resolve([404, { error: 'not found' }]);
  work.then(
    (result) => {
      const [status, payload] = result as [number, unknown];
      send(res, status, payload);
    },
    (error: Error) => send(res, 500, { error: error.message }),
  );
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
