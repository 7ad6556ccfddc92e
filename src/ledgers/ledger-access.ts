import type { Principal } from '../platform/auth/principal.js';

/** Who reads ledgers: the caller's principal and, when it names one, the sales unit it acts for. */
export interface LedgerCaller {
  principal: Principal;
  /** The graph always acts for one sales unit; the report API only when `Merchant-Serial-Number` is sent. */
  msn?: string;
}

/**
 * Which ledgers a caller's keys cover (FACTS §11: "all ledgers for the keys used"), as a SQL condition on
 * `ledger l`: a merchant's (or checkout client's) own; a PSP's signed-up merchants'; a partner's connected merchants
 * that consented to share their data with it. A caller acting for a sales unit sees only the ledger settling for
 * it. Another merchant's ledger is then exactly like one that does not exist.
 */
export function ledgerAccess(caller: LedgerCaller): { sql: string; params: unknown[] } {
  const access = principalAccess(caller.principal);
  if (caller.msn === undefined) return access;
  return {
    sql: `${access.sql} and exists (select 1 from ledger_sales_unit m where m.ledger_id = l.id and m.msn = ?)`,
    params: [...access.params, caller.msn],
  };
}

function principalAccess(principal: Principal): { sql: string; params: unknown[] } {
  switch (principal.kind) {
    case 'merchant':
    case 'checkoutClient':
      return { sql: 'l.merchant_id = ?', params: [principal.merchantId] };
    case 'psp':
      return { sql: 'l.merchant_id in (select pm.merchant_id from psp_merchant pm where pm.psp_id = ?)', params: [principal.pspId] };
    case 'partner':
      return {
        sql: `l.id in (select lsu.ledger_id from ledger_sales_unit lsu
                join partner_sales_unit psu on psu.msn = lsu.msn
                where psu.partner_id = ? and psu.merchant_consent)`,
        params: [principal.partnerId],
      };
  }
}
