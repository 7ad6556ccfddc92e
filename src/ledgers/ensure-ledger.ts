import type { SqlSession } from '../platform/db/statement-transaction.js';
import { addDays, osloDate } from './business-days.js';
import { DEFAULT_PRICE, recipientHandle, type SalesUnitPrice } from './ledger.rules.js';

/** What a ledger needs of a sales unit: its MSN and merchant. */
export interface LedgerSalesUnitSource {
  msn: string;
  merchantId: string;
}

export interface EnsureLedgerOptions {
  price?: SalesUnitPrice;
  /** The merchant's payout account (11 digits, BBAN:NO); null until known. */
  payoutAccountId?: string | null;
  now?: Date;
}

/** The ledger a sales unit settles into and its price, as the projector reads them. */
export interface SalesUnitLedger {
  ledgerId: number;
  recipientHandle: string;
  currency: string;
  price: SalesUnitPrice;
}

/**
 * The one way a sales unit gets its settlement ledger: the merchant's ledger (created with the first of its sales
 * units) and the sales unit's place in it with its price. Idempotent and safe when two requests race (both insert
 * `on conflict do nothing`, then read); seeding, a new sales unit and a first capture all call it. Uses only
 * plain statements, so it may run in the write runner's statement transaction (the projector) as well as on an EntityManager (`sessionOf`).
 */
export async function ensureLedger(
  session: SqlSession,
  salesUnit: LedgerSalesUnitSource,
  options: EnsureLedgerOptions = {},
): Promise<SalesUnitLedger> {
  const existing = await findSalesUnitLedger(session, salesUnit.msn);
  if (existing) return existing;
  const now = options.now ?? new Date();
  await session.query({
    sql: `insert into ledger (merchant_id, currency, payout_account_scheme, payout_account_id, owner_scheme, owner_id, closed_through, created_at)
     select m.id, 'NOK', 'BBAN:NO', ?, 'business:NO:ORG', m.org_number, ?, ? from merchant m where m.id = ?
     on conflict (merchant_id) do nothing`,
    params: [options.payoutAccountId ?? null, addDays(osloDate(now), -1), now, salesUnit.merchantId],
  });
  const price = options.price ?? DEFAULT_PRICE;
  await session.query({
    sql: `insert into ledger_sales_unit (msn, ledger_id, recipient_handle, fee_basis_points, fee_fixed, created_at)
     select ?, l.id, ?, ?, ?, ? from ledger l where l.merchant_id = ?
     on conflict (msn) do nothing`,
    params: [salesUnit.msn, recipientHandle(salesUnit.msn), price.feeBasisPoints, price.feeFixed, now, salesUnit.merchantId],
  });
  const created = await findSalesUnitLedger(session, salesUnit.msn);
  if (!created) throw new Error(`No ledger could be made for sales unit ${salesUnit.msn}`);
  return created;
}

interface LedgerRow {
  ledger_id: string | number | null;
  recipient_handle: string;
  currency: string;
  fee_basis_points: number;
  fee_fixed: string | number;
}

export async function findSalesUnitLedger(session: SqlSession, msn: string): Promise<SalesUnitLedger | undefined> {
  const rows = await session.query<LedgerRow>({
    sql: `select lsu.ledger_id, lsu.recipient_handle, l.currency, lsu.fee_basis_points, lsu.fee_fixed
     from ledger_sales_unit lsu join ledger l on l.id = lsu.ledger_id where lsu.msn = ?`,
    params: [msn],
  });
  return rows[0] ? toSalesUnitLedger(rows[0]) : undefined;
}

function toSalesUnitLedger(row: LedgerRow): SalesUnitLedger {
  return {
    ledgerId: Number(row.ledger_id),
    recipientHandle: row.recipient_handle,
    currency: row.currency.trim(),
    price: { feeBasisPoints: Number(row.fee_basis_points), feeFixed: Number(row.fee_fixed) },
  };
}

/**
 * What `ledgerOfRow` reads of a sales unit (its MSN the one parameter): its merchant, and its ledger and price
 * when it has them. Also read by the settlement projector in a modification's first statement (ledger.projector.ts).
 */
export const SALES_UNIT_LEDGER_SQL = `select su.merchant_id, lsu.ledger_id, lsu.recipient_handle, l.currency, lsu.fee_basis_points, lsu.fee_fixed
     from sales_unit su left join ledger_sales_unit lsu on lsu.msn = su.msn left join ledger l on l.id = lsu.ledger_id
     where su.msn = ?`;

export type SalesUnitLedgerRow = LedgerRow & { merchant_id: string };

/** The ledger from `SALES_UNIT_LEDGER_SQL`'s row, made first when the unit has none (then a few statements more). */
export async function ledgerOfRow(
  session: SqlSession,
  msn: string,
  row: SalesUnitLedgerRow | undefined,
  now: Date,
): Promise<SalesUnitLedger | undefined> {
  if (!row) return undefined;
  if (row.ledger_id !== null) return toSalesUnitLedger(row);
  return ensureLedger(session, { msn, merchantId: row.merchant_id }, { now });
}
