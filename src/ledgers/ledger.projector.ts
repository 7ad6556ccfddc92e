import { entityInsertSql } from '../platform/db/entity-columns.js';
import type { EventProjector } from '../platform/events/event-projectors.js';
import type { NewEvent } from '../platform/events/record-event.js';
import { ledgerOfRow, SALES_UNIT_LEDGER_SQL, type SalesUnitLedgerRow } from './ensure-ledger.js';
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
 * gross - fee), every refund a `refund` row (negative, no fee), in the statement that writes the payment's event.
 * Anything that records `epayments.payment.captured.v1`/`refunded.v1` on a payment stream feeds it.
 */
export const ledgerProjector: EventProjector = {
  name: 'settlement-ledger',
  streamType: 'payment',
  names: [CAPTURED, REFUNDED],
  readSql: SALES_UNIT_LEDGER_SQL,
  async writes({ session, metadata }, event, read) {
    if (!projected(event)) return [];
    const ledger = await ledgerOfRow(session, event.msn, read as SalesUnitLedgerRow | undefined, event.occurredAt);
    if (!ledger) throw new Error(`Sales unit ${event.msn} of a money event is unknown`);
    return [entityInsertSql(metadata.get(LedgerTransaction), settlementRow(event, ledger))];
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

/** The one rule of a money event's ledger row, whichever way it is written. */
function settlementRow(
  event: MoneyEvent,
  ledger: { ledgerId: number; recipientHandle: string; price: Parameters<typeof captureFee>[1] },
): Omit<LedgerTransaction, 'id'> {
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
