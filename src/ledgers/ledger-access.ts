import type { Principal } from '../platform/auth/principal.js';

/**
 * Which ledgers a caller's keys cover (FACTS §11: "all ledgers for the keys used"), as a SQL condition on
 * `ledger l`: a merchant's (or checkout client's) own; a PSP's signed-up merchants'; a partner's connected merchants
 * that consented to share their data with it. Another merchant's ledger is then exactly like one that does not exist.
 */
export function ledgerAccess(principal: Principal): { sql: string; params: unknown[] } {
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
