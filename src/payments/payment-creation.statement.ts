import type { EntityMetadata } from '@mikro-orm/core';
import { boundValue, entityColumns, placeholder } from '../platform/db/entity-columns.js';
import { SALES_UNIT_ACCEPTS_PAYMENTS_SQL, assertSalesUnitAcceptsPayments } from '../merchants/sales-unit-status.js';
import type { SalesUnit } from '../merchants/sales-unit.entity.js';
import { AppError } from '../platform/errors/app-error.js';
import { outboxInsertSql } from '../platform/events/record-event.js';
import { outcomeJson, refusalJson, type StatementAction } from '../platform/idempotency/idempotency.service.js';
import { PAYMENT_STREAM, paymentEventPayload, paymentOutboxName } from './payment-event.types.js';
import type { Payment } from './payment.entity.js';
import { newPspReference } from './psp-reference.js';

/** A new payment: every property of the entity, as `createPayment` fills them. */
export type NewPayment = Payment;

/** The statement's own columns of its final row. */
export interface CreationRow {
  unit_status: SalesUnit['status'] | null;
  long_living_payments_allowed: boolean | null;
  created: string | null;
}

/**
 * A create's writes as the CTEs of one statement behind the idempotency key's gate (`runIdempotentStatement`): the
 * sales unit's terms read once (a deactivated unit takes no payment, only an approved one a long-living payment), the
 * payment, its CREATED event in the outbox, and the key's answer: the view, or the refusal of a reference already
 * used, which is recorded under the key's lock like any replayable refusal. A payment that may not be made writes
 * nothing and records nothing, as the transaction it replaces rolled back.
 */
export function paymentCreation<View>(
  meta: EntityMetadata<Payment>,
  payment: NewPayment,
  request: { idempotencyKey: string; longLiving: boolean },
  view: View,
): StatementAction<View, CreationRow> {
  const { idempotencyKey, longLiving } = request;
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
    ctes: `unit as materialized (
  select status, long_living_payments_allowed, ${SALES_UNIT_ACCEPTS_PAYMENTS_SQL} as accepts from sales_unit where msn = ? limit 1
), allowed as materialized (
  select 1 from go, unit where unit.accepts and (not ? or unit.long_living_payments_allowed)
), created as (
  insert into payment (${columns.map(({ column }) => column).join(', ')})
  select ${columns.map(({ json }) => placeholder(json)).join(', ')} from allowed
  on conflict (msn, reference) do nothing
  returning id
), event as (
  ${event.sql}
), answer as (
  select case when exists (select 1 from created) then ?::jsonb else ?::jsonb end as outcome from allowed
)`,
    params: [
      payment.msn,
      longLiving,
      ...columns.map(({ field, json }) => boundValue(payment[field], json)),
      ...event.params,
      outcomeJson(view),
      refusalJson(referenceTaken),
    ],
    recorded: 'select outcome from answer',
    columns:
      '(select status from unit) as unit_status, (select long_living_payments_allowed from unit) as long_living_payments_allowed, (select id from created) as created',
    answer(row) {
      if (row.unit_status === null) throw new Error(`Sales unit ${payment.msn} does not exist`);
      assertSalesUnitAcceptsPayments({ msn: payment.msn, status: row.unit_status });
      if (longLiving && !row.long_living_payments_allowed) {
        throw new AppError('LONG_LIVING_PAYMENT_NOT_ALLOWED', 'This sales unit is not approved for long-living payments', [
          { name: 'expiresAt', reason: 'The sales unit may not create long-living payments' },
        ]);
      }
      if (row.created === null) throw referenceTaken;
      return view;
    },
  };
}
