import type { SqlCondition } from '../platform/auth/coverage.js';
import type { RequestContext } from '../platform/context.js';

/** Who reads ledgers: the sales units the caller covers and, when it names one, the sales unit it acts for. */
export interface LedgerCaller {
  /** The caller's coverage (coverage.ts) as a condition on an SQL expression naming a sales unit's MSN. */
  covered(msnColumn: string): SqlCondition;
  /** The graph always acts for one sales unit; the report API only when `Merchant-Serial-Number` is sent. */
  msn?: string | undefined;
}

/**
 * The ledger reader of a request: its keys cover the ledgers of the units whose merchant's own data it may read
 * (FACTS §11: "all ledgers for the keys used"): a merchant's own, a PSP's signed-up merchants', a partner's
 * connected merchants that consented to share their data with it.
 */
export function ledgerCallerOf(ctx: RequestContext, msn: string | undefined): LedgerCaller {
  return { covered: (msnColumn) => ctx.covered(msnColumn, { readsMerchantData: true, wholePrincipal: true }), msn };
}

/**
 * Which ledgers a caller's keys cover, as a SQL condition on `ledger l`: one that settles for a unit the caller
 * covers. A caller acting for a sales unit sees only the ledger settling for it. Another merchant's ledger is then
 * exactly like one that does not exist.
 */
export function ledgerAccess(caller: LedgerCaller): { sql: string; params: unknown[] } {
  const covered = caller.covered('lc.msn');
  const access = {
    sql: `exists (select 1 from ledger_sales_unit lc where lc.ledger_id = l.id and ${covered.sql})`,
    params: covered.params,
  };
  if (caller.msn === undefined) return access;
  return {
    sql: `${access.sql} and exists (select 1 from ledger_sales_unit m where m.ledger_id = l.id and m.msn = ?)`,
    params: [...access.params, caller.msn],
  };
}
