import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A merchant's settlement ledger (spec 3 "Settlement ledger", FACTS §11); payout ids run from 2000001 per ledger. */
export const Ledger = defineEntity({
  name: 'Ledger',
  tableName: 'ledger',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.uuid().unique(),
    currency: p.string(),
    payoutAccountScheme: p.string(),
    payoutAccountId: p.string().nullable(),
    ownerScheme: p.string(),
    ownerId: p.string(),
    firstPayout: p.bigint('number').nullable(),
    lastPayout: p.bigint('number').nullable(),
    /** The last ledger date the payout job closed. */
    closedThrough: p.string().columnType('date'),
    createdAt: p.datetime(),
  },
});
export type Ledger = InferEntity<typeof Ledger>;

/** A sales unit a ledger settles for, with its price: a percentage (basis points) plus a fixed part per capture. */
export const LedgerSalesUnit = defineEntity({
  name: 'LedgerSalesUnit',
  tableName: 'ledger_sales_unit',
  properties: {
    msn: p.string().primary(),
    ledgerId: p.bigint('number'),
    recipientHandle: p.string(),
    feeBasisPoints: p.integer(),
    feeFixed: p.bigint('number'),
    createdAt: p.datetime(),
  },
});
export type LedgerSalesUnit = InferEntity<typeof LedgerSalesUnit>;

export type LedgerTransactionType = 'capture' | 'refund' | 'payout';

/** One row of a ledger; `payoutId` is the payout that paid it out (a payout row carries its own id). */
export const LedgerTransaction = defineEntity({
  name: 'LedgerTransaction',
  tableName: 'ledger_transaction',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    ledgerId: p.bigint('number'),
    transactionType: p.string().$type<LedgerTransactionType>(),
    occurredAt: p.datetime(),
    ledgerDate: p.string().columnType('date'),
    orderId: p.string().nullable(),
    paymentId: p.uuid().nullable(),
    recipientHandle: p.string().nullable(),
    currency: p.string(),
    grossAmount: p.bigint('number'),
    fee: p.bigint('number'),
    ledgerAmount: p.bigint('number'),
    payoutId: p.bigint('number').nullable(),
  },
});
export type LedgerTransaction = InferEntity<typeof LedgerTransaction>;
