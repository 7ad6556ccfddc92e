import type { Services } from '../context.js';
import type { Em } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import type { Principal } from './principal.js';
import { salesUnitScope, type TenancyScope } from './tenancy-scope.js';

export type { TenancyScope } from './tenancy-scope.js';

/** The filter of every tenant-owned query: rows of the sales unit the request acts for, nothing else. */
export function scoped(ctx: { scope: TenancyScope }): { msn: string } {
  return { msn: ctx.scope.msn };
}

/**
 * The scope of a request acting for the MSN, if the principal covers it (coverage.ts): otherwise 403, whatever the
 * reason, so the answer tells nothing about whose the sales unit is.
 */
export async function scopeFor(services: Services, em: Em, principal: Principal, msn: string): Promise<TenancyScope> {
  const coverage = await services.salesUnits.coverageOf(em, principal, msn);
  if (!coverage) {
    throw new AppError('FORBIDDEN_SALES_UNIT', `The caller may not act for Merchant-Serial-Number ${msn}`, [
      { name: 'Merchant-Serial-Number', reason: 'Not a sales unit of the caller' },
    ]);
  }
  return salesUnitScope(msn, coverage.readsMerchantData);
}
