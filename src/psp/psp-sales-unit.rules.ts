import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { assertSalesUnitAcceptsPayments } from '../merchants/sales-unit-status.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { PspSalesUnit } from './psp-payment.entity.js';

/**
 * The one rule of whether a sales unit takes PSP payments from a PSP: it is registered for PSP payments with that
 * PSP (seeded, or created by PSP signup), still active (its merchant not deactivated), and the sales unit itself is
 * not DEACTIVATED (the merchants domain's rule for every kind of payment).
 */
export async function pspSalesUnitTakingPayments(em: Em, pspId: string, msn: string): Promise<PspSalesUnit> {
  const unit = await em.findOne(PspSalesUnit, { msn });
  if (!unit || unit.pspId !== pspId || !unit.active) {
    throw new AppError('PSP_MERCHANT_NOT_ACTIVE', `Sales unit ${msn} does not take PSP payments`, [
      { name: 'Merchant-Serial-Number', reason: 'Not active for PSP payments' },
    ]);
  }
  const salesUnit = await em.findOne(SalesUnit, { msn }, { fields: ['msn', 'status'] });
  if (salesUnit) assertSalesUnitAcceptsPayments(salesUnit);
  return unit;
}
