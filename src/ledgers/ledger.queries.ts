import { ledgerAccess, type LedgerCaller } from './ledger-access.js';
import type { Em } from '../platform/db/orm.js';

import type { LedgerTransactionType } from './ledger.entity.js';

/** A ledger as both faces show it (spec 3 "Settlement ledger"); `id` is the row key, `ledgerId` its public text. */
export interface LedgerView {
  id: number;
  ledgerId: string;
  currency: string;
  payoutBankAccount: { scheme: string; id: string | null };
  firstPayout: string | null;
  lastPayout: string | null;
  owner: { scheme: string; id: string };
  settlesForRecipientHandles: string[];
  prices: { msn: string; recipientHandle: string; feeBasisPoints: number; feeFixed: number }[];
}

export interface LedgerTransactionView {
  id: number;
  transactionId: string;
  timestamp: string;
  ledgerDate: string;
  ledgerId: string;
  transactionType: LedgerTransactionType;
  orderId: string | null;
  paymentId: string | null;
  msn: string | null;
  currency: string;
  ledgerAmount: number;
  grossAmount: number;
  fee: number;
  recipientHandle: string | null;
  payoutId: string | null;
}

/** The report API's filters of a ledger's transactions (FACTS §11). */
export interface TransactionFilter {
  ledgerDate?: string;
  fromLedgerDate?: string;
  toLedgerDate?: string;
  inPayout?: string;
  sincePayout?: string;
}

type Row = Record<string, unknown>;
const num = (value: unknown): number => Number(value);
const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value).trim());

/** The ledgers the caller covers, by id after `afterId` (keyset), optionally only the one settling for a handle. */
export async function readLedgers(
  em: Em,
  caller: LedgerCaller,
  query: { recipientHandle?: string; afterId?: number; limit: number; ledgerIds?: readonly number[] },
): Promise<LedgerView[]> {
  const access = ledgerAccess(caller);
  const where = [access.sql];
  const params: unknown[] = [...access.params];
  if (query.recipientHandle !== undefined) {
    where.push('exists (select 1 from ledger_sales_unit h where h.ledger_id = l.id and h.recipient_handle = ?)');
    params.push(query.recipientHandle);
  }
  if (query.ledgerIds !== undefined) {
    if (query.ledgerIds.length === 0) return [];
    where.push(`l.id in (${query.ledgerIds.map(() => '?').join(', ')})`);
    params.push(...query.ledgerIds);
  }
  if (query.afterId !== undefined) {
    where.push('l.id > ?');
    params.push(query.afterId);
  }
  params.push(query.limit);
  const rows = await em.execute<Row[]>(
    `select l.id, l.currency, l.payout_account_scheme, l.payout_account_id, l.owner_scheme, l.owner_id, l.first_payout, l.last_payout,
       (select coalesce(json_agg(json_build_object('msn', s.msn, 'handle', s.recipient_handle, 'bp', s.fee_basis_points, 'fixed', s.fee_fixed) order by s.msn), '[]'::json)
        from ledger_sales_unit s where s.ledger_id = l.id) as units
     from ledger l where ${where.join(' and ')} order by l.id limit ?`,
    params,
  );
  return rows.map(toLedgerView);
}

function toLedgerView(row: Row): LedgerView {
  const rawUnits = typeof row.units === 'string' ? JSON.parse(row.units) : row.units;
  const units = (rawUnits as { msn: string; handle: string; bp: number; fixed: number | string }[]).map((u) => ({
    msn: u.msn,
    recipientHandle: u.handle,
    feeBasisPoints: num(u.bp),
    feeFixed: num(u.fixed),
  }));
  return {
    id: num(row.id),
    ledgerId: String(row.id),
    currency: text(row.currency)!,
    payoutBankAccount: { scheme: String(row.payout_account_scheme), id: text(row.payout_account_id) },
    firstPayout: text(row.first_payout),
    lastPayout: text(row.last_payout),
    owner: { scheme: String(row.owner_scheme), id: String(row.owner_id) },
    settlesForRecipientHandles: units.map((u) => u.recipientHandle),
    prices: units,
  };
}

const TRANSACTION_COLUMNS = `t.id, t.ledger_id, t.transaction_type, t.occurred_at, t.ledger_date::text as ledger_date, t.order_id, t.payment_id,
  t.recipient_handle, t.currency, t.gross_amount, t.fee, t.ledger_amount, t.payout_id`;

/** The keyset filter of a ledger's transactions: the ledger, the report API's filters, the position after `afterId`. */
function transactionWhere(ledgerId: number, filter: TransactionFilter, afterId: number | undefined): { sql: string; params: unknown[] } {
  const where = ['t.ledger_id = ?'];
  const params: unknown[] = [ledgerId];
  if (filter.ledgerDate !== undefined) {
    where.push('t.ledger_date = ?');
    params.push(filter.ledgerDate);
  }
  if (filter.fromLedgerDate !== undefined) {
    where.push('t.ledger_date >= ?');
    params.push(filter.fromLedgerDate);
  }
  if (filter.toLedgerDate !== undefined) {
    where.push('t.ledger_date <= ?');
    params.push(filter.toLedgerDate);
  }
  if (filter.inPayout !== undefined) {
    where.push('t.payout_id = ?');
    params.push(filter.inPayout);
  }
  if (filter.sincePayout !== undefined) {
    where.push('(t.payout_id is null or t.payout_id > ?)');
    params.push(filter.sincePayout);
  }
  if (afterId !== undefined) {
    where.push('t.id > ?');
    params.push(afterId);
  }
  return { sql: where.join(' and '), params };
}

/** Transactions of one ledger in ledger order (the order they were entered, newest last), after `afterId`. */
export async function readLedgerTransactions(
  em: Em,
  ledgerId: number,
  filter: TransactionFilter,
  page: { afterId?: number; limit: number },
): Promise<LedgerTransactionView[]> {
  const where = transactionWhere(ledgerId, filter, page.afterId);
  const rows = await em.execute<Row[]>(`select ${TRANSACTION_COLUMNS} from ledger_transaction t where ${where.sql} order by t.id limit ?`, [
    ...where.params,
    page.limit,
  ]);
  return rows.map(toTransactionView);
}

/**
 * The same page as the report API writes it: the database renders the items' JSON (the definition's Transaction,
 * timestamps as `toISOString` writes them) in the keyset query itself, so a 1000-row page is one text value, not
 * 1000 rows to parse, map and serialize again. `more` tells whether a row follows the page.
 */
export async function readLedgerTransactionsJson(
  em: Em,
  ledgerId: number,
  filter: TransactionFilter,
  page: { afterId?: number; size: number },
): Promise<{ itemsJson: string; lastId: number | null; more: boolean }> {
  const where = transactionWhere(ledgerId, filter, page.afterId);
  const [row] = await em.execute<{ items: string; last_id: string | number | null; fetched: string | number }[]>(
    `with page as (select ${TRANSACTION_COLUMNS} from ledger_transaction t where ${where.sql} order by t.id limit ?),
          shown as (select * from page order by id limit ?)
     select (select count(*) from page) as fetched, (select max(id) from shown) as last_id,
       coalesce((select json_agg(json_build_object(
         'transactionId', s.id::text,
         'timestamp', to_char(s.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'ledgerDate', s.ledger_date, 'ledgerId', s.ledger_id::text, 'transactionType', s.transaction_type, 'orderId', s.order_id,
         'currency', trim(s.currency), 'ledgerAmount', s.ledger_amount, 'grossAmount', s.gross_amount, 'fee', s.fee,
         'recipientHandle', s.recipient_handle) order by s.id) from shown s), '[]')::text as items`,
    [...where.params, page.size + 1, page.size],
  );
  return {
    itemsJson: row!.items,
    lastId: row!.last_id === null ? null : Number(row!.last_id),
    more: Number(row!.fetched) > page.size,
  };
}

/** The transactions of these payments in ledgers the caller covers, in ledger order (one statement for a page of payments). */
export async function readTransactionsOfPayments(
  em: Em,
  caller: LedgerCaller,
  paymentIds: readonly string[],
): Promise<LedgerTransactionView[]> {
  if (paymentIds.length === 0) return [];
  const access = ledgerAccess(caller);
  const rows = await em.execute<Row[]>(
    `select ${TRANSACTION_COLUMNS} from ledger_transaction t join ledger l on l.id = t.ledger_id
     where t.payment_id in (${paymentIds.map(() => '?').join(', ')}) and ${access.sql} order by t.id`,
    [...paymentIds, ...access.params],
  );
  return rows.map(toTransactionView);
}

/** One transaction the caller covers, by its id (`node(id:)`). */
export async function readLedgerTransaction(em: Em, caller: LedgerCaller, id: number): Promise<LedgerTransactionView | undefined> {
  const access = ledgerAccess(caller);
  const [row] = await em.execute<Row[]>(
    `select ${TRANSACTION_COLUMNS} from ledger_transaction t join ledger l on l.id = t.ledger_id where t.id = ? and ${access.sql}`,
    [id, ...access.params],
  );
  return row ? toTransactionView(row) : undefined;
}

function toTransactionView(row: Row): LedgerTransactionView {
  const handle = text(row.recipient_handle);
  const occurredAt = row.occurred_at instanceof Date ? row.occurred_at : new Date(String(row.occurred_at));
  return {
    id: num(row.id),
    transactionId: String(row.id),
    timestamp: occurredAt.toISOString(),
    ledgerDate: String(row.ledger_date),
    ledgerId: String(row.ledger_id),
    transactionType: row.transaction_type as LedgerTransactionType,
    orderId: text(row.order_id),
    paymentId: text(row.payment_id),
    msn: handle?.startsWith('api:') ? handle.slice(4) : null,
    currency: text(row.currency)!,
    ledgerAmount: num(row.ledger_amount),
    grossAmount: num(row.gross_amount),
    fee: num(row.fee),
    recipientHandle: handle,
    payoutId: text(row.payout_id),
  };
}
