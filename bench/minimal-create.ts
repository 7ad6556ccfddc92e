/**
 * Create payment in the fewest statements that keep its semantics: one statement, a chain of CTEs run as one
 * implicit transaction. The same advisory lock on the idempotency key (tried, not waited for), the same lookup of
 * the key's record, the same check that the sales unit takes payments, the payment row, its outbox event and the
 * key's record, all or nothing. It is the floor Paygraph's statement count per create is compared with
 * (test/graphql/statement-count.test.ts counts ours); served by the baseline server at `POST /minimal/payments`.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type pg from 'pg';

export const MINIMAL_CREATE_STATEMENTS = 1;

const CREATE = `
with lock as materialized (
  select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked
), existing as materialized (
  select request_digest, outcome from idempotency_record
  where client_id = $2 and msn = $3 and operation = 'payment.create' and target = '' and idempotency_key = $4 limit 1
), unit as materialized (
  select msn from sales_unit where msn = $3 and status = 'ACTIVE'
), go as materialized (
  select 1 from lock, unit where lock.locked and not exists (select 1 from existing)
), created as (
  insert into payment (id, msn, reference, psp_reference, state, currency, amount, payment_method_type, user_flow,
    customer_interaction, return_url, payment_description, approval_token, expires_at, created_at, updated_at)
  select $5, $3, $6, $7, 'CREATED', $8, $9, 'WALLET', $10, 'CUSTOMER_NOT_PRESENT', $11, $12, $13, $14, $15, $15 from go
  returning id
), event as (
  insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at)
  select 'payment', id, $3, 'epayments.payment.created.v1', $16, $15 from created
  returning id
), record as (
  insert into idempotency_record (client_id, msn, operation, target, idempotency_key, request_digest, outcome, created_at)
  select $2, $3, 'payment.create', '', $4, $17, $18, $15 from created
  returning id
)
select (select locked from lock) as locked, (select outcome from existing) as replayed, exists (select 1 from unit) as unit_open,
  (select id from created) as created, (select id from event) as event, (select id from record) as record`;

interface CreateInput {
  reference: string;
  amount: { currency: string; value: number };
  userFlow: string;
  returnUrl: string;
  paymentDescription?: string;
}

/** The answer and its status, as the REST route gives them for the cases the benchmark sends. */
export async function minimalCreate(
  pool: pg.Pool,
  caller: { clientId: string; msn: string },
  input: CreateInput,
  key: string,
): Promise<[number, unknown]> {
  const id = randomUUID();
  const token = randomBytes(24).toString('base64url');
  const now = new Date();
  const response = { redirectUrl: `http://localhost/wallet/landing?token=${token}`, reference: input.reference };
  const payload = JSON.stringify({
    reference: input.reference,
    pspReference: String(randomInt(1e9, 1e10)),
    name: 'CREATED',
    amount: input.amount,
    idempotencyKey: key,
    success: true,
  });
  const { rows } = await pool.query<{ locked: boolean; replayed: unknown; unit_open: boolean; created: string | null }>(CREATE, [
    `${caller.clientId}|${caller.msn}|payment.create||${key}`,
    caller.clientId,
    caller.msn,
    key,
    id,
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
    payload,
    '0'.repeat(64),
    JSON.stringify({ ok: true, value: response }),
  ]);
  const row = rows[0]!;
  if (!row.locked) return [409, { title: 'A request with this Idempotency-Key is still being processed' }];
  if (row.replayed) return [201, (row.replayed as { value: unknown }).value];
  if (!row.unit_open) return [400, { title: 'The sales unit takes no payments' }];
  return [201, response];
}
