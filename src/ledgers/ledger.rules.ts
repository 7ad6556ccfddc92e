import { addBusinessDays, osloDate } from './business-days.js';

/** The price of a sales unit: a percentage of each capture (in basis points, 1/100 of a percent) plus a fixed part. */
export interface SalesUnitPrice {
  feeBasisPoints: number;
  feeFixed: number;
}

/** What a sales unit created without a price of its own pays (also the production default). */
export const DEFAULT_PRICE: SalesUnitPrice = { feeBasisPoints: 175, feeFixed: 100 };

/** The first payout id of every ledger (FACTS §11); the next ones follow one by one. */
export const FIRST_PAYOUT_ID = 2_000_001;

/**
 * The fee of one capture: the percentage rounded half up to a whole minor unit, plus the fixed part, never more
 * than the capture itself (a tiny capture leaves nothing, never a negative amount).
 */
export function captureFee(gross: number, price: SalesUnitPrice): number {
  const percentage = Math.floor((gross * price.feeBasisPoints + 5_000) / 10_000);
  return Math.min(gross, percentage + price.feeFixed);
}

/**
 * The fee policy on refunds: a refund returns the refunded amount only; the capture's fee is not given back and a
 * refund costs nothing (fee 0), so `ledgerAmount` = `grossAmount` = minus the refunded amount.
 */
export function refundFee(): number {
  return 0;
}

/** A capture lands on the ledger the day it happens, in Oslo. */
export function captureLedgerDate(capturedAt: Date): string {
  return osloDate(capturedAt);
}

/** A refund is deducted two Norwegian business days after it happens. */
export function refundLedgerDate(refundedAt: Date): string {
  return addBusinessDays(osloDate(refundedAt), 2);
}

export function recipientHandle(msn: string): string {
  return `api:${msn}`;
}
