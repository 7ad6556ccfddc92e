import type { CoverageNarrowing, CoverageProvider, SqlCondition, UnitCoverage } from '../platform/auth/coverage.js';
import type { Principal } from '../platform/auth/principal.js';
import type { Em } from '../platform/db/orm.js';
import { SalesUnit } from './sales-unit.entity.js';

/**
 * Which sales units a principal covers (registered with the platform as its coverage provider): a merchant or
 * checkout client its own, a partner those connected to it (the merchant's own data only with the merchant's
 * consent), a PSP those of the merchants it signed up. The check of one unit is the SQL condition asked of that
 * unit, so the two are one rule. Ownership never changes once a sales unit exists, so found owners are kept for
 * the life of the process; misses are not, so a new sales unit is seen at once.
 */
export class SalesUnitDirectory implements CoverageProvider {
  private readonly owners = new Map<string, string>();

  async ownerOf(em: Em, msn: string): Promise<string | undefined> {
    const cached = this.owners.get(msn);
    if (cached) return cached;
    const unit = await em.findOne(SalesUnit, { msn });
    if (unit) this.owners.set(msn, unit.merchantId);
    return unit?.merchantId;
  }

  async coverageOf(em: Em, principal: Principal, msn: string): Promise<UnitCoverage | undefined> {
    // A merchant's own units, from the owners kept in memory: the condition below, without a statement per request.
    if (principal.kind === 'merchant' || principal.kind === 'checkoutClient') {
      const owner = await this.ownerOf(em, msn);
      return owner === principal.merchantId ? { merchantId: owner, readsMerchantData: true } : undefined;
    }
    const covered = this.condition(principal, 'su.msn');
    const consented = this.condition(principal, 'su.msn', { readsMerchantData: true });
    const [row] = await em.execute<{ merchant_id: string; reads_merchant_data: boolean }[]>(
      `select su.merchant_id, (${consented.sql}) as reads_merchant_data from sales_unit su where su.msn = ? and ${covered.sql}`,
      [...consented.params, msn, ...covered.params],
    );
    return row ? { merchantId: row.merchant_id, readsMerchantData: Boolean(row.reads_merchant_data) } : undefined;
  }

  condition(principal: Principal, msnColumn: string, narrowing: CoverageNarrowing = {}): SqlCondition {
    const base = principalCondition(principal, msnColumn, narrowing.readsMerchantData ?? false);
    if (narrowing.actingFor === undefined) return base;
    return {
      sql: `${base.sql} and ${msnColumn} in (select af.msn from sales_unit af
              where af.merchant_id = (select afm.merchant_id from sales_unit afm where afm.msn = ?))`,
      params: [...base.params, narrowing.actingFor],
    };
  }
}

function principalCondition(principal: Principal, column: string, readsMerchantData: boolean): SqlCondition {
  switch (principal.kind) {
    case 'merchant':
    case 'checkoutClient':
      return { sql: `${column} in (select cu.msn from sales_unit cu where cu.merchant_id = ?)`, params: [principal.merchantId] };
    case 'partner':
      return {
        sql: `${column} in (select cp.msn from partner_sales_unit cp where cp.partner_id = ?${readsMerchantData ? ' and cp.merchant_consent' : ''})`,
        params: [principal.partnerId],
      };
    case 'psp':
      return {
        sql: `${column} in (select cs.msn from sales_unit cs join psp_merchant cm on cm.merchant_id = cs.merchant_id where cm.psp_id = ?)`,
        params: [principal.pspId],
      };
    case 'operator':
    case 'wallet':
      // The operator runs the platform, a wallet app acts for its users: neither acts for a sales unit, and their
      // graph fields read no tenant's data.
      return { sql: 'false', params: [] };
  }
}
