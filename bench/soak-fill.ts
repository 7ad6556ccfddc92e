/**
 * The soak's fill (issue 36): payments with their events, positions, webhook deliveries, attempts and idempotency
 * records, written by set-based statements (INSERT … SELECT over generate_series), a chunk of payments per
 * transaction, in the shapes the service writes them (bench/README.md, Soak). Every statement is plain SQL with its
 * values inlined (numbers and ISO times only), so the same statements run on PostgreSQL (`npm run soak`) and PGlite
 * (test/platform/soak-fill.test.ts checks them against the service's invariants, and its reads' buffers).
 *
 * Payment i (1-based) is created at `start + (i - 1) × stepMs`, oldest first, so ids, event ids and positions follow
 * time as they do in service. Of every 20 payments: one expires (CREATED, EXPIRED), one stays authorized (CREATED,
 * AUTHORIZED), 18 are captured in full (CREATED, AUTHORIZED, CAPTURED). One in ten belongs to MSN 654321, the rest to
 * 123456. Each MSN has one webhook registration for CAPTURED events: a captured payment has one delivery, delivered
 * on its first attempt. Idempotency records (create and capture) are written only for payments created within
 * `idempotencyFromMs` of the end, as the service's prune would have removed older ones.
 */
export interface FillPlan {
  /** When payment 1 was created. */
  start: Date;
  /** Time between two payments. */
  stepMs: number;
  /** Idempotency records are written for payments created at or after this instant. */
  idempotencyFrom: Date;
}

/** The webhook registration each MSN's captured payments are delivered to (fixed ids, so a rerun finds them). */
export const SOAK_WEBHOOKS = [
  { id: '5a0c0000-0000-4000-8000-000000123456', msn: '123456' },
  { id: '5a0c0000-0000-4000-8000-000000654321', msn: '654321' },
] as const;

export const SOAK_CLIENTS: Record<string, string> = { '123456': 'test-client-123456', '654321': 'test-client-654321' };

const DAY_MS = 24 * 60 * 60 * 1000;

/** A payment's reference: `soak-` and its number, 15 characters. */
export const soakReference = (i: number) => `soak-${String(i).padStart(10, '0')}`;

const iso = (at: Date) => `'${at.toISOString()}'::timestamptz`;

/**
 * The registrations, and a day partition of the attempt log for every day the fill covers (the service keeps days
 * from yesterday on; older days are what a prune drops). `receiverUrl` is where deliveries made from now on go.
 */
export function setupStatements(plan: FillPlan, payments: number, receiverUrl: string): string[] {
  const first = Math.floor(plan.start.getTime() / DAY_MS);
  const last = Math.floor((plan.start.getTime() + payments * plan.stepMs) / DAY_MS) + 1;
  const days: string[] = [];
  for (let day = first; day <= last; day++) {
    const from = new Date(day * DAY_MS);
    const to = new Date((day + 1) * DAY_MS);
    const name = `delivery_attempt_p${from.toISOString().slice(0, 10).replaceAll('-', '')}`;
    days.push(
      `do $$ begin
         if to_regclass('${name}') is null then
           create table ${name} (like delivery_attempt including defaults including constraints);
           alter table delivery_attempt attach partition ${name} for values from ('${from.toISOString()}') to ('${to.toISOString()}');
         end if;
       end $$`,
    );
  }
  return [
    ...SOAK_WEBHOOKS.map(
      (w) =>
        `insert into webhook (id, msn, url, events, secret, created_at)
         values ('${w.id}', '${w.msn}', '${receiverUrl}', '["epayments.payment.captured.v1"]', 'soak-secret-${w.msn}', ${iso(plan.start)})
         on conflict (id) do update set url = excluded.url`,
    ),
    ...days,
  ];
}

/**
 * The statements that write payments `from` to `to` (inclusive), to run in one transaction in this order. Positions
 * continue from the sequencer's `last_position` (read and moved in the same transaction, as a sequencing does), and
 * the events are written already dispatched, so neither the sequencer nor the dispatcher has anything to do for them.
 */
export function chunkStatements(plan: FillPlan, from: number, to: number): string[] {
  const created = `(${iso(plan.start)} + ((i - 1)::float8 * ${plan.stepMs}) * interval '1 millisecond')`;
  const msn = `(case when i % 10 = 0 then '654321' else '123456' end)`;
  // 0: expired, 1: authorized only, otherwise captured.
  const kind = `(i % 20)`;
  const amount = `(1000 + (i % 500) * 100)`;
  const payments = `select i, ${created} as created_at, ${msn} as msn, ${kind} as kind, ${amount} as amount
    from generate_series(${from}, ${to}) as i`;
  const soakWebhooks = SOAK_WEBHOOKS.map((w) => `'${w.id}'`).join(', ');
  return [
    // Where this chunk's events and deliveries start: every row above these ids is the chunk's (nothing else writes).
    `create temporary table soak_chunk on commit drop as
     select (select coalesce(max(id), 0) from domain_event) as event_from, (select coalesce(max(id), 0) from delivery) as delivery_from`,
    `insert into payment (id, msn, reference, psp_reference, state, currency, amount, authorized_amount, captured_amount,
       cancelled_amount, refunded_amount, payment_method_type, user_flow, customer_interaction, customer_phone_number,
       return_url, payment_description, approval_token, expires_at, authorized_at, created_at, updated_at)
     select md5('soak-payment-' || i)::uuid, msn, 'soak-' || lpad(i::text, 10, '0'), (1000000000 + i)::text,
       case when kind = 0 then 'EXPIRED' else 'AUTHORIZED' end, 'NOK', amount,
       case when kind = 0 then 0 else amount end, case when kind >= 2 then amount else 0 end, 0, 0, 'WALLET', 'WEB_REDIRECT',
       'CUSTOMER_NOT_PRESENT', case when kind = 0 then null else '4791234567' end, 'https://merchant.example/return', 'Soak',
       'soak' || md5('soak-token-' || i), created_at + interval '10 minutes',
       case when kind = 0 then null else created_at + interval '20 seconds' end, created_at,
       created_at + case when kind = 0 then interval '10 minutes' when kind = 1 then interval '20 seconds' else interval '40 seconds' end
     from (${payments}) p`,
    // The events, in order of payment and step, so ids follow time; each step's pspReference is its own, as in service.
    `insert into domain_event (msn, name, occurred_at, dispatched_at, stream_type, stream_id, payload)
     select msn, 'epayments.payment.' || lower(step.name) || '.v1', created_at + step.after, created_at + step.after,
       'payment', md5('soak-payment-' || i)::uuid::text,
       jsonb_build_object('name', step.name, 'amount', jsonb_build_object('value', amount, 'currency', 'NOK'), 'success', true,
         'reference', 'soak-' || lpad(i::text, 10, '0'), 'pspReference', (2000000000 + i * 4 + step.n)::text,
         'idempotencyKey', case step.name when 'CREATED' then 'soak-create-' || i when 'CAPTURED' then 'soak-capture-' || i end)
     from (${payments}) p
     cross join lateral (values (1, 'CREATED', interval '0 seconds'), (2, 'AUTHORIZED', interval '20 seconds'),
       (3, 'CAPTURED', interval '40 seconds'), (4, 'EXPIRED', interval '10 minutes')) as step(n, name, after)
     where step.n = 1 or (step.n = 4 and kind = 0) or (step.n = 2 and kind <> 0) or (step.n = 3 and kind >= 2)
     order by i, step.n`,
    // Positions for this chunk's events, after every position given before (a sequencing's own move).
    `with fresh as (
       select e.id, e.msn, row_number() over (order by e.id) as n from domain_event e where e.id > (select event_from from soak_chunk)
     ), turn as (
       update event_sequencer set last_position = last_position + (select count(*) from fresh) where id = 1
       returning last_position - (select count(*) from fresh) as base
     )
     insert into event_position (event_id, position, msn) select fresh.id, turn.base + fresh.n, fresh.msn from fresh, turn`,
    `insert into delivery (kind, receiver, webhook_id, event_id, stream_type, stream_id, status, attempt_count, next_attempt_at,
       delivered_at, last_status_code, created_at)
     select 'webhook', w.id, w.id, e.id, 'payment', e.stream_id, 'delivered', 1, e.occurred_at,
       e.occurred_at + interval '50 milliseconds', 200, e.occurred_at
     from domain_event e join webhook w on w.msn = e.msn and w.id in (${soakWebhooks})
     where e.id > (select event_from from soak_chunk) and e.name = 'epayments.payment.captured.v1'
     order by e.id`,
    `insert into delivery_attempt (delivery_id, attempted_at, status_code, duration_ms)
     select d.id, d.created_at + interval '10 milliseconds', 200, 40 from delivery d where d.id > (select delivery_from from soak_chunk)`,
    // The records a retried create or capture is answered from, in the shape the service stores.
    `insert into idempotency_record (client_id, msn, operation, idempotency_key, request_digest, outcome, created_at, target)
     select case msn when '654321' then '${SOAK_CLIENTS['654321']}' else '${SOAK_CLIENTS['123456']}' end, msn, op.operation,
       op.key_prefix || i, md5(op.operation || i) || md5(i || op.operation),
       jsonb_build_object('ok', true, 'value', jsonb_build_object('id', md5('soak-payment-' || i)::uuid, 'msn', msn,
         'state', op.state, 'amount', amount, 'currency', 'NOK', 'reference', 'soak-' || lpad(i::text, 10, '0'),
         'pspReference', (1000000000 + i)::text, 'userFlow', 'WEB_REDIRECT', 'paymentMethodType', 'WALLET',
         'paymentDescription', 'Soak', 'authorizedAmount', op.authorized * amount, 'capturedAmount', op.captured * amount,
         'cancelledAmount', 0, 'refundedAmount', 0, 'createdAt', created_at, 'expiresAt', created_at + interval '10 minutes')),
       created_at + op.after, case when op.target_reference = 1 then 'soak-' || lpad(i::text, 10, '0') else '' end
     from (${payments}) p
     cross join lateral (values ('payment.create', 'soak-create-', 'CREATED', 0, 0, interval '0 seconds', 0),
       ('payment.capture', 'soak-capture-', 'AUTHORIZED', 1, 1, interval '40 seconds', 1))
       as op(operation, key_prefix, state, authorized, captured, after, target_reference)
     where created_at >= ${iso(plan.idempotencyFrom)} and (op.operation = 'payment.create' or kind >= 2)`,
  ];
}
