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

/**
 * The keyset filter of a ledger's transactions: the ledger (by its id, or by a condition such as "the ledger this id
 * names, when the caller covers it"), the report API's filters, the position after `afterId`.
 */
function transactionWhere(
  ledger: { sql: string; params: unknown[] },
  filter: TransactionFilter,
  afterId: number | undefined,
): { sql: string; params: unknown[] } {
  const where = [ledger.sql];
  const params: unknown[] = [...ledger.params];
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
  const where = transactionWhere({ sql: 't.ledger_id = ?', params: [ledgerId] }, filter, page.afterId);
  const rows = await em.execute<Row[]>(`select ${TRANSACTION_COLUMNS} from ledger_transaction t where ${where.sql} order by t.id limit ?`, [
    ...where.params,
    page.limit,
  ]);
  return rows.map(toTransactionView);
}

/**
 * A transaction as the report API writes it (FACTS §11 Transaction): the view without what the report leaves out.
 * `toReportTransaction` builds it in the definition's key order.
 */
export type ReportTransaction = Omit<LedgerTransactionView, 'id' | 'paymentId' | 'msn' | 'payoutId'>;

/**
 * A page of the report API in one statement: the ledger condition asks whether the caller covers the ledger
 * (evaluated once, not per row), so a page costs no separate ledger read. An empty page therefore does not tell an
 * uncovered ledger from an empty one; the caller asks again then. Rows map straight to the report's shape: the
 * database writing the whole JSON itself (json_agg, json_build_object) took about 15 ms for 1000 rows where these
 * rows and one JSON.stringify took 6 (measured side by side on the 2-core machine). `more` tells whether a row
 * follows the page.
 */
export async function readReportTransactions(
  em: Em,
  caller: LedgerCaller,
  ledgerId: number,
  filter: TransactionFilter,
  page: { afterId?: number; size: number },
): Promise<{ items: ReportTransaction[]; lastId: number | null; more: boolean }> {
  const access = ledgerAccess(caller);
  const covered = {
    sql: `t.ledger_id = (select l.id from ledger l where l.id = ? and ${access.sql})`,
    params: [ledgerId, ...access.params],
  };
  const where = transactionWhere(covered, filter, page.afterId);
  const rows = await em.execute<Row[]>(`select ${REPORT_COLUMNS} from ledger_transaction t where ${where.sql} order by t.id limit ?`, [
    ...where.params,
    page.size + 1,
  ]);
  const shown = rows.length > page.size ? rows.slice(0, page.size) : rows;
  return {
    items: shown.map((row) => toReportTransaction(row, String(ledgerId))),
    lastId: shown.length === 0 ? null : num(shown[shown.length - 1]!.id),
    more: rows.length > page.size,
  };
}

/**
 * The report's columns: only what it shows, the timestamp already as text in `toISOString`'s form, since the driver
 * turning 1000 timestamps into Dates and back cost more than the rest of the mapping.
 */
const REPORT_COLUMNS = `t.id, t.transaction_type, to_char(t.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as occurred_at,
  t.ledger_date::text as ledger_date, t.order_id, t.recipient_handle, t.currency, t.gross_amount, t.fee, t.ledger_amount`;

function toReportTransaction(row: Row, ledgerId: string): ReportTransaction {
  return {
    transactionId: String(row.id),
    timestamp: String(row.occurred_at),
    ledgerDate: String(row.ledger_date),
    ledgerId,
    transactionType: row.transaction_type as LedgerTransactionType,
    orderId: (row.order_id as string | null) ?? null,
    currency: text(row.currency)!,
    ledgerAmount: num(row.ledger_amount),
    grossAmount: num(row.gross_amount),
    fee: num(row.fee),
    recipientHandle: (row.recipient_handle as string | null) ?? null,
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
