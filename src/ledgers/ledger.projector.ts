import type { Em } from '../platform/db/orm.js';
import { entityInsertSql } from '../platform/db/entity-columns.js';
import type { EventProjector } from '../platform/events/event-projectors.js';
import type { NewEvent } from '../platform/events/record-event.js';
import { ledgerOfRow, ledgerOfSalesUnit, SALES_UNIT_LEDGER_SQL, type SalesUnitLedger, type SalesUnitLedgerRow } from './ensure-ledger.js';
import { LedgerTransaction } from './ledger.entity.js';
import { captureFee, captureLedgerDate, refundFee, refundLedgerDate } from './ledger.rules.js';

const CAPTURED = 'epayments.payment.captured.v1';
const REFUNDED = 'epayments.payment.refunded.v1';

interface MoneyEventPayload {
  reference: string;
  amount: { currency: string; value: number };
  success?: boolean;
}

type MoneyEvent = Pick<NewEvent, 'name' | 'streamId' | 'msn' | 'payload' | 'occurredAt'>;

/**
 * The ledger side of the money flow: every successful capture appends a `capture` row (gross, the sales unit's fee,
 * gross - fee), every refund a `refund` row (negative, no fee), in the transaction that records the payment's event:
 * at its flush (`project`), or in the same statement when the event is written by SQL (`statement`: a merchant's
 * capture and refund). Anything that records `epayments.payment.captured.v1`/`refunded.v1` on a payment stream feeds it.
 */
export const ledgerProjector: EventProjector = {
  name: 'settlement-ledger',
  streamType: 'payment',
  names: [CAPTURED, REFUNDED],
  async project(em: Em, event: MoneyEvent): Promise<void> {
    if (!projected(event)) return;
    const row = settlementRow(event, await ledgerOf(event, () => ledgerOfSalesUnit(em, event.msn, event.occurredAt)));
    em.create(LedgerTransaction, row);
  },
  statement: {
    readSql: SALES_UNIT_LEDGER_SQL,
    async writes(em, event, read) {
      if (!projected(event)) return [];
      const ledger = await ledgerOf(event, () => ledgerOfRow(em, event.msn, read as SalesUnitLedgerRow | undefined, event.occurredAt));
      return [entityInsertSql(em.getMetadata().get(LedgerTransaction), settlementRow(event, ledger))];
    },
  },
};

/** Whether the event makes a row: a successful capture or refund of a positive amount. */
function projected(event: MoneyEvent): boolean {
  if (event.name !== CAPTURED && event.name !== REFUNDED) return false;
  const payload = event.payload as unknown as MoneyEventPayload;
  if (payload.success === false) return false;
  const value = Number(payload.amount.value);
  return Number.isSafeInteger(value) && value > 0;
}

async function ledgerOf(event: MoneyEvent, find: () => Promise<SalesUnitLedger | undefined>): Promise<SalesUnitLedger> {
  const ledger = await find();
  if (!ledger) throw new Error(`Sales unit ${event.msn} of a money event is unknown`);
  return ledger;
}

/** The one rule of a money event's ledger row, whichever way it is written. */
function settlementRow(event: MoneyEvent, ledger: SalesUnitLedger): Omit<LedgerTransaction, 'id'> {
  const payload = event.payload as unknown as MoneyEventPayload;
  const value = Number(payload.amount.value);
  const capture = event.name === CAPTURED;
  const gross = capture ? value : -value;
  const fee = capture ? captureFee(value, ledger.price) : refundFee();
  return {
    ledgerId: ledger.ledgerId,
    transactionType: capture ? 'capture' : 'refund',
    occurredAt: event.occurredAt,
    ledgerDate: capture ? captureLedgerDate(event.occurredAt) : refundLedgerDate(event.occurredAt),
    orderId: payload.reference,
    paymentId: event.streamId,
    recipientHandle: ledger.recipientHandle,
    currency: payload.amount.currency,
    grossAmount: gross,
    fee,
    ledgerAmount: gross - fee,
    payoutId: null,
  };
}
