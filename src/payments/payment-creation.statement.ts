import type { EntityMetadata } from '@mikro-orm/core';
import { boundValue, entityColumns, placeholder } from '../platform/db/entity-columns.js';
import { SALES_UNIT_ACCEPTS_PAYMENTS_SQL, assertSalesUnitAcceptsPayments } from '../merchants/sales-unit-status.js';
import type { SalesUnit } from '../merchants/sales-unit.entity.js';
import { AppError } from '../platform/errors/app-error.js';
import { outboxInsertSql } from '../platform/events/record-event.js';
import { outcomeJson, refusalJson } from '../platform/idempotency/idempotency-gate.js';
import type { Operation } from '../platform/db/run-operation.js';
import { PAYMENT_STREAM, paymentEventPayload, paymentOutboxName } from './payment-event.types.js';
import type { Payment } from './payment.entity.js';
import { newPspReference } from './psp-reference.js';

/** A new payment: every property of the entity, as `createPayment` fills them. */
export type NewPayment = Payment;

/** The statement's own columns of its row. */
interface CreationRow {
  unit_status: SalesUnit['status'] | null;
  long_living_payments_allowed: boolean | null;
  express_enabled: boolean | null;
  created: string | null;
}

/**
 * A create for the write runner, one statement behind the idempotency key's gate: its read, the sales unit's terms
 * (a deactivated unit takes no payment, only an approved one a long-living payment), and its guarded write: the
 * payment, its CREATED event in the outbox, and the key's answer: the view, or the refusal of a reference already
 * used, which is recorded under the key's lock like any replayable refusal. A payment that may not be made writes
 * nothing and records nothing. Its decision needs nothing of TypeScript that the row does not say, so it is made in
 * the statement and read back, one round trip.
 */
export function paymentCreation<View>(
  meta: EntityMetadata<Payment>,
  payment: NewPayment,
  request: { idempotencyKey: string; longLiving: boolean; express: boolean },
  view: View,
): Pick<Operation<View, never>, 'read' | 'guardedWrite' | 'decide'> {
  const { idempotencyKey, longLiving, express } = request;
  const columns = entityColumns(meta);
  const referenceTaken = new AppError('REFERENCE_ALREADY_EXISTS', `A payment with reference ${payment.reference} already exists`, [
    { name: 'reference', reason: 'Already used by another payment of this sales unit' },
  ]);
  const event = outboxInsertSql(
    {
      streamType: PAYMENT_STREAM,
      msn: payment.msn,
      name: paymentOutboxName('CREATED'),
      payload: paymentEventPayload({
        reference: payment.reference,
        pspReference: newPspReference(),
        name: 'CREATED',
        currency: payment.currency,
        amount: payment.amount,
        idempotencyKey,
        success: true,
      }) as unknown as Record<string, unknown>,
      occurredAt: payment.createdAt,
    },
    'created',
    'id::text',
  );
  return {
    read: {
      ctes: [
        `unit as materialized (
  select status, long_living_payments_allowed, express_enabled, ${SALES_UNIT_ACCEPTS_PAYMENTS_SQL} as accepts from sales_unit where msn = ? limit 1
)`,
      ],
      params: [payment.msn],
      columns:
        '(select status from unit) as unit_status, (select long_living_payments_allowed from unit) as long_living_payments_allowed, (select express_enabled from unit) as express_enabled, (select id from created) as created',
      joins: '',
    },
    guardedWrite: {
      ctes: [
        `allowed as materialized (select 1 from go, unit where unit.accepts and (not ? or unit.long_living_payments_allowed) and (not ? or unit.express_enabled))`,
        `created as (
  insert into payment (${columns.map(({ column }) => column).join(', ')})
  select ${columns.map(({ json }) => placeholder(json)).join(', ')} from allowed
  on conflict (msn, reference) do nothing
  returning id
)`,
        `event as (
  ${event.sql}
)`,
        `answer as (select case when exists (select 1 from created) then ?::jsonb else ?::jsonb end as outcome from allowed)`,
      ],
      params: [
        longLiving,
        express,
        ...columns.map(({ field, json }) => boundValue(payment[field], json)),
        ...event.params,
        outcomeJson(view),
        refusalJson(referenceTaken),
      ],
      recorded: 'select outcome from answer',
    },
    decide({ row }) {
      const { unit_status, long_living_payments_allowed, express_enabled, created } = row as unknown as CreationRow;
      if (unit_status === null) throw new Error(`Sales unit ${payment.msn} does not exist`);
      assertSalesUnitAcceptsPayments({ msn: payment.msn, status: unit_status });
      if (longLiving && !long_living_payments_allowed) {
        throw new AppError('LONG_LIVING_PAYMENT_NOT_ALLOWED', 'This sales unit is not approved for long-living payments', [
          { name: 'expiresAt', reason: 'The sales unit may not create long-living payments' },
        ]);
      }
      if (express && !express_enabled) {
        throw new AppError('EXPRESS_NOT_ALLOWED', 'This sales unit is not enabled for Express', [
          { name: 'shipping', reason: 'The sales unit may not create Express payments' },
        ]);
      }
      if (created === null) throw referenceTaken;
      return { value: view };
    },
  };
}
