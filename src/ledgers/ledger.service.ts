import type { LedgerCaller } from './ledger-access.js';
import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { DATE_REASON, storableDate } from '../platform/validation/storable-time.js';
import { boundTo, decodeCursor, encodeCursor, type CursorScope, type CursorState } from '../platform/paging/cursor.js';
import { idKeyset } from '../platform/paging/keyset.js';
import {
  readLedgerTransactions,
  readLedgers,
  readReportTransactions,
  type LedgerTransactionView,
  type LedgerView,
  type ReportTransaction,
  type TransactionFilter,
} from './ledger.queries.js';

/** Rows per report API response (FACTS §11: up to 1000 items per request). */
export const REPORT_PAGE_SIZE = 1000;

const DIGITS = /^[0-9]{1,15}$/;
const HANDLE = /^(api|nor):[0-9]{1,10}$/;

export interface ReportPage<T> {
  /** Empty when there are no more rows. */
  cursor: string;
  items: T[];
}

/** Who reads, with what: the caller, its unit of work and the key that signs cursors. */
export interface LedgerReader {
  em: Em;
  caller: LedgerCaller;
  cursorSecret: string;
}

/** A date query parameter, refused naming it (`name`) when it is no date the database can store. */
export function checkDate(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (storableDate(value) === undefined) throw AppError.validation([{ name, reason: DATE_REASON }]);
  return value;
}

function checkDigits(name: string, value: string | undefined, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (!DIGITS.test(value)) throw AppError.validation([{ name, reason: `Must be ${what} (digits)` }]);
  return value;
}

/** Checks the report API's filters; a range whose start is after its end is refused rather than answered empty. */
export function checkTransactionFilter(raw: Record<keyof TransactionFilter, string | undefined>): TransactionFilter {
  const filter: TransactionFilter = {};
  const ledgerDate = checkDate('ledgerDate', raw.ledgerDate);
  const fromLedgerDate = checkDate('fromLedgerDate', raw.fromLedgerDate);
  const toLedgerDate = checkDate('toLedgerDate', raw.toLedgerDate);
  const inPayout = checkDigits('inPayout', raw.inPayout, 'a payout id');
  const sincePayout = checkDigits('sincePayout', raw.sincePayout, 'a payout id');
  if (fromLedgerDate && toLedgerDate && fromLedgerDate > toLedgerDate) {
    throw AppError.validation([{ name: 'fromLedgerDate', reason: 'Must not be after toLedgerDate' }]);
  }
  if (ledgerDate) filter.ledgerDate = ledgerDate;
  if (fromLedgerDate) filter.fromLedgerDate = fromLedgerDate;
  if (toLedgerDate) filter.toLedgerDate = toLedgerDate;
  if (inPayout) filter.inPayout = inPayout;
  if (sincePayout) filter.sincePayout = sincePayout;
  return filter;
}

/** `GET /settlement/v1/ledgers`: the ledgers the caller's keys cover, optionally the one settling for a handle. */
export async function listLedgers(
  reader: LedgerReader,
  params: { settlesForRecipientHandles?: string; cursor?: string },
): Promise<ReportPage<LedgerView>> {
  const handle = params.settlesForRecipientHandles;
  if (handle !== undefined && !HANDLE.test(handle)) {
    throw AppError.validation([{ name: 'settlesForRecipientHandles', reason: 'Must be a recipient handle such as api:123456' }]);
  }
  const scope = { list: 'GET /settlement/v1/ledgers', secret: reader.cursorSecret };
  let filter: { settlesForRecipientHandles?: string } = handle === undefined ? {} : { settlesForRecipientHandles: handle };
  let afterId: number | undefined;
  if (params.cursor) {
    const state = openCursor(scope, params.cursor);
    if (handle !== undefined && !boundTo(state, filter, null)) throw cursorOfAnotherQuery();
    filter = state.filter as typeof filter;
    afterId = afterIdOf(state);
  }
  const rows = await readLedgers(reader.em, reader.caller, {
    recipientHandle: filter.settlesForRecipientHandles,
    afterId,
    limit: REPORT_PAGE_SIZE + 1,
  });
  const items = rows.slice(0, REPORT_PAGE_SIZE);
  const more = rows.length > REPORT_PAGE_SIZE;
  const cursor = more ? encodeCursor(scope, { key: idKeyset.keyOf(items[items.length - 1]!), filter, parent: null }) : '';
  return { cursor, items };
}

/**
 * `GET /report/v1/ledgertransactions`: one ledger's transactions, every filter, newest last, 1000 a page, as the
 * body the report API sends. With a cursor only `ledgerId` is needed; filters sent with it must be the cursor's own.
 */
export async function listLedgerTransactions(
  reader: LedgerReader,
  params: { ledgerId?: string; cursor?: string; filter: Record<keyof TransactionFilter, string | undefined> },
): Promise<ReportPage<ReportTransaction>> {
  let filter = checkTransactionFilter(params.filter);
  let afterId: number | undefined;
  let ledgerId = params.ledgerId;
  const scope = { list: 'GET /report/v1/ledgertransactions', secret: reader.cursorSecret };
  if (params.cursor) {
    const state = openCursor(scope, params.cursor);
    if (ledgerId !== undefined && ledgerId !== state.parent) throw cursorOfAnotherQuery();
    // Filters sent with a cursor must be the cursor's own; those left out are carried on from it.
    const given = Object.entries(filter);
    if (given.some(([key, value]) => state.filter[key] !== value)) throw cursorOfAnotherQuery();
    filter = state.filter as TransactionFilter;
    afterId = afterIdOf(state);
    ledgerId = state.parent ?? undefined;
  }
  if (ledgerId === undefined) throw AppError.validation([{ name: 'ledgerId', reason: 'The parameter is required' }]);
  if (!DIGITS.test(ledgerId)) throw ledgerNotFound();
  const page = await readReportTransactions(reader.em, reader.caller, Number(ledgerId), filter, { afterId, size: REPORT_PAGE_SIZE });
  // An empty page is also what a ledger the caller does not cover reads as: that one is refused, not shown empty.
  if (page.items.length === 0) await findCoveredLedger(reader, ledgerId);
  const cursor =
    page.more && page.lastId !== null
      ? encodeCursor(scope, { key: idKeyset.keyOf({ id: page.lastId }), filter: { ...filter }, parent: ledgerId })
      : '';
  return { cursor, items: page.items };
}

/** A page of the ledgers the caller's keys cover, in id order (the graph's `Query.ledgers`). */
export function ledgersPage(
  reader: Pick<LedgerReader, 'em' | 'caller'>,
  query: { recipientHandle?: string; afterId?: number; limit: number },
): Promise<LedgerView[]> {
  return readLedgers(reader.em, reader.caller, query);
}

/** A page of a covered ledger's transactions under the report API's filters (the graph's `Ledger.transactions`). */
export function ledgerTransactionsPage(
  reader: Pick<LedgerReader, 'em'>,
  ledger: Pick<LedgerView, 'id'>,
  rawFilter: Record<keyof TransactionFilter, string | undefined>,
  page: { afterId?: number; limit: number },
): Promise<LedgerTransactionView[]> {
  return readLedgerTransactions(reader.em, ledger.id, checkTransactionFilter(rawFilter), page);
}

/** A ledger the caller covers; another merchant's is refused exactly like one that does not exist. */
export async function findCoveredLedger(reader: Pick<LedgerReader, 'em' | 'caller'>, ledgerId: string): Promise<LedgerView> {
  const id = DIGITS.test(ledgerId) ? Number(ledgerId) : undefined;
  const [ledger] = id === undefined ? [] : await readLedgers(reader.em, reader.caller, { ledgerIds: [id], limit: 1 });
  if (!ledger) throw ledgerNotFound();
  return ledger;
}

function ledgerNotFound(): AppError {
  return new AppError('LEDGER_NOT_FOUND', 'No ledger with this id is available to the caller', [
    { name: 'ledgerId', reason: 'Unknown ledger' },
  ]);
}

/** The state of a cursor of this report list; anything else is refused as not a cursor of the query. */
function openCursor(scope: CursorScope, cursor: string): CursorState {
  const state = decodeCursor(scope, cursor);
  if (!state || idKeyset.read(state.key) === undefined) {
    throw AppError.validation([{ name: 'cursor', reason: 'Not a cursor of this query' }]);
  }
  return state;
}

function afterIdOf(state: CursorState): number {
  return idKeyset.read(state.key)!;
}

function cursorOfAnotherQuery(): AppError {
  return AppError.validation([{ name: 'cursor', reason: 'The cursor belongs to another query or ledger' }]);
}
