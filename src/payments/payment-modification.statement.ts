import type { EntityMetadata } from '@mikro-orm/core';
import { boundValue, entityColumns, placeholder } from '../platform/db/entity-columns.js';
import type { Em } from '../platform/db/orm.js';
import type { SqlWrite } from '../platform/db/sql-write.js';
import { eventWrites, projectionReads } from '../platform/events/event-statement.js';
import type { NewEvent } from '../platform/events/record-event.js';
import type { GatedRead } from '../platform/idempotency/idempotent-read-write.js';
import type { PaymentEventName } from './payment-event.entity.js';
import { PAYMENT_STREAM, paymentOutboxName } from './payment-event.types.js';
import { lockedPaymentRead, type PaymentForVerbOfRow } from './payment-for-verb.js';
import { Payment } from './payment.entity.js';

/** A modification's SQL: its read with the key's gate, and its writes with the key's record. */
export interface PaymentModificationStatement {
  read: GatedRead;
  /** The payment's update and the events with their projectors' rows (a capture's ledger row), as writes of one statement. */
  writes(em: Em, taken: PaymentForVerbOfRow, events: readonly NewEvent[], row: Record<string, unknown>): Promise<SqlWrite[]>;
}

/**
 * A capture, refund or cancel in two statements (`runIdempotentReadWrite`), each sent with its end of the
 * transaction: the key's gate with the payment locked and what the projectors of the events the verb may record read
 * (the settlement ledger's terms for a capture or refund, nothing for a cancel), with the BEGIN; the payment's update,
 * its events and their projectors' rows with the key's record, with the COMMIT. The verb's rules stay TypeScript, on
 * the locked payment, between the two.
 */
export function paymentModification(msn: string, reference: string, mayRecord: readonly PaymentEventName[]): PaymentModificationStatement {
  const payment = lockedPaymentRead(msn, reference);
  // Every verb may find its payment overdue and expire it (EXPIRED, which nothing projects).
  const projections = projectionReads(PAYMENT_STREAM, [...mayRecord, 'EXPIRED' as const].map(paymentOutboxName), msn);
  return {
    read: {
      ctes: [payment.cte, ...projections.ctes].join(',\n'),
      params: [...payment.params, ...projections.params],
      columns: [payment.columns, ...projections.columns].join(', '),
      joins: payment.join,
    },
    async writes(em, taken, events, row) {
      const update = paymentUpdateSql(em.getMetadata().get(Payment), taken.before, taken.payment);
      return [...(update ? [update] : []), ...(await eventWrites(em, events, projections.of(row)))];
    },
  };
}

/**
 * The columns a verb changed (against the row as read), as an update of the payment's row; undefined when nothing
 * changed. The database's CHECK constraints still guard the amounts.
 */
export function paymentUpdateSql(meta: EntityMetadata<Payment>, before: Payment, after: Payment): SqlWrite | undefined {
  const changed = entityColumns(meta).filter(({ field }) => !sameValue(before[field], after[field]));
  if (changed.length === 0) return undefined;
  return {
    sql: `update payment set ${changed.map(({ column, json }) => `${column} = ${placeholder(json)}`).join(', ')} where id = ?`,
    params: [...changed.map(({ field, json }) => boundValue(after[field], json)), after.id],
  };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}
