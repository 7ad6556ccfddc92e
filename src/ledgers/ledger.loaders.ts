import DataLoader from 'dataloader';
import type { LedgerCaller } from './ledger-access.js';
import { defineLoader } from '../platform/graph/loader-registry.js';
import { readPaymentsByIds } from '../payments/payment.read-model.js';
import type { PaymentFields } from '../payments/payment.view.js';
import { readLedgers, readTransactionsOfPayments, type LedgerTransactionView, type LedgerView } from './ledger.queries.js';

/** A key that carries the caller, whose ledger access filters the batch (the same for every key of a request). */
interface Covered<K> {
  key: K;
  caller: LedgerCaller;
}

/** The ledger transactions of every payment on a page, in one statement. */
export const ledgerTransactionsByPaymentIdLoader = defineLoader(
  'ledgerTransactionsByPaymentIdLoader',
  (em) =>
    new DataLoader<Covered<string>, LedgerTransactionView[], string>(
      async (keys) => {
        const rows = await readTransactionsOfPayments(
          em,
          keys[0]!.caller,
          keys.map((k) => k.key),
        );
        return keys.map((k) => rows.filter((row) => row.paymentId === k.key));
      },
      { cacheKeyFn: (k) => k.key },
    ),
);

/** The ledgers of every transaction on a page, in one statement. */
export const ledgerByIdLoader = defineLoader(
  'ledgerByIdLoader',
  (em) =>
    new DataLoader<Covered<number>, LedgerView | undefined, number>(
      async (keys) => {
        const ids = [...new Set(keys.map((k) => k.key))];
        const found = new Map<number, LedgerView>();
        for (const ledger of await readLedgers(em, keys[0]!.caller, { ledgerIds: ids, limit: ids.length })) found.set(ledger.id, ledger);
        return keys.map((k) => found.get(k.key));
      },
      { cacheKeyFn: (k) => k.key },
    ),
);

/** The payments (of the request's sales unit) that transactions on a page belong to, in one statement. */
export const paymentByIdLoader = defineLoader(
  'paymentByIdLoader',
  (em) =>
    new DataLoader<{ msn: string; id: string }, PaymentFields | undefined, string>(
      async (keys) => {
        const byMsn = new Map<string, string[]>();
        for (const k of keys) byMsn.set(k.msn, [...(byMsn.get(k.msn) ?? []), k.id]);
        const found = new Map<string, PaymentFields>();
        for (const [msn, ids] of byMsn)
          for (const payment of await readPaymentsByIds(em, msn, ids)) found.set(`${msn}|${payment.id}`, payment);
        return keys.map((k) => found.get(`${k.msn}|${k.id}`));
      },
      { cacheKeyFn: (k) => `${k.msn}|${k.id}` },
    ),
);
