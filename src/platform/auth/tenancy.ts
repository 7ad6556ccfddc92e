import type { Services } from '../context.js';
import type { Em } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import type { Principal } from './principal.js';
import type { TenancyScope } from './tenancy-scope.js';

export type { TenancyScope } from './tenancy-scope.js';

/** The filter of every tenant-owned query: rows of the sales unit the request acts for, nothing else. */
export function scoped(ctx: { scope: TenancyScope }): { msn: string } {
  return { msn: ctx.scope.msn };
}

/**
 * Whether the principal may act for the MSN: a merchant or checkout client for its own sales units, a partner for
 * those connected to it, a PSP for those of the merchants it signed up. Otherwise 403, whatever the reason, so
 * the answer tells nothing about whose the sales unit is.
 */
export async function scopeFor(services: Services, em: Em, principal: Principal, msn: string): Promise<TenancyScope> {
  const scope = await permittedScope(services, em, principal, msn);
  if (!scope) {
    throw new AppError('FORBIDDEN_SALES_UNIT', `The caller may not act for Merchant-Serial-Number ${msn}`, [
      { name: 'Merchant-Serial-Number', reason: 'Not a sales unit of the caller' },
    ]);
  }
  return scope;
}

async function permittedScope(services: Services, em: Em, principal: Principal, msn: string): Promise<TenancyScope | undefined> {
  switch (principal.kind) {
    case 'merchant':
    case 'checkoutClient':
      return (await services.salesUnits.ownerOf(em, msn)) === principal.merchantId ? { msn, readsMerchantData: true } : undefined;
    case 'partner': {
      const connection = await services.salesUnits.partnerConnection(em, principal.partnerId, msn);
      return connection ? { msn, readsMerchantData: connection.merchantConsent } : undefined;
    }
    case 'psp':
      return (await services.salesUnits.isPspSalesUnit(em, principal.pspId, msn)) ? { msn, readsMerchantData: true } : undefined;
  }
}
