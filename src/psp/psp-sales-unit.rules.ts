import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { PspSalesUnit } from './psp-payment.entity.js';

/**
 * The one rule of whether a sales unit takes PSP payments from a PSP: it is registered for PSP payments with that
 * PSP (seeded, or created by PSP signup) and still active (its merchant not deactivated). Extend it here (e.g. a
 * deactivated sales unit of another domain), nowhere else.
 */
export async function pspSalesUnitTakingPayments(em: Em, pspId: string, msn: string): Promise<PspSalesUnit> {
  const unit = await em.findOne(PspSalesUnit, { msn });
  if (!unit || unit.pspId !== pspId || !unit.active) {
    throw new AppError('PSP_MERCHANT_NOT_ACTIVE', `Sales unit ${msn} does not take PSP payments`, [
      { name: 'Merchant-Serial-Number', reason: 'Not active for PSP payments' },
    ]);
  }
  return unit;
}
