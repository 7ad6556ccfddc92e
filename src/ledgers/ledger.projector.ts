import type { Em } from '../platform/db/orm.js';
import type { DomainEvent } from '../platform/events/domain-event.entity.js';
import type { EventProjector } from '../platform/events/event-projectors.js';
import { ledgerOfSalesUnit } from './ensure-ledger.js';
import { LedgerTransaction } from './ledger.entity.js';
import { captureFee, captureLedgerDate, refundFee, refundLedgerDate } from './ledger.rules.js';

const CAPTURED = 'epayments.payment.captured.v1';
const REFUNDED = 'epayments.payment.refunded.v1';

interface MoneyEventPayload {
  reference: string;
  amount: { currency: string; value: number };
  success?: boolean;
}

/**
 * The ledger side of the money flow: every successful capture appends a `capture` row (gross, the sales unit's fee,
 * gross - fee), every refund a `refund` row (negative, no fee), in the flush that records the payment's event.
 * Anything that records `epayments.payment.captured.v1`/`refunded.v1` on a payment stream feeds it.
 */
export const ledgerProjector: EventProjector = {
  name: 'settlement-ledger',
  streamType: 'payment',
  names: [CAPTURED, REFUNDED],
  async project(em: Em, event: DomainEvent): Promise<void> {
    if (event.name !== CAPTURED && event.name !== REFUNDED) return;
    const payload = event.payload as unknown as MoneyEventPayload;
    if (payload.success === false) return;
    const value = Number(payload.amount.value);
    if (!Number.isSafeInteger(value) || value <= 0) return;
    const ledger = await ledgerOfSalesUnit(em, event.msn, event.occurredAt);
    if (!ledger) throw new Error(`Sales unit ${event.msn} of a money event is unknown`);
    const capture = event.name === CAPTURED;
    const gross = capture ? value : -value;
    const fee = capture ? captureFee(value, ledger.price) : refundFee();
    em.create(LedgerTransaction, {
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
    });
  },
};
