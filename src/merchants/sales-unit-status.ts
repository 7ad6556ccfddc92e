import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { SalesUnit } from './sales-unit.entity.js';
import './merchants.errors.js';

/**
 * The one rule every kind of payment asks before it creates a payment: a DEACTIVATED sales unit refuses new
 * payments, on every interface, until it is ACTIVE again. Returns the unit (read once, so a caller that needs
 * more of it reads nothing else).
 */
export async function requireSalesUnitAcceptsPayments(em: Em, msn: string): Promise<SalesUnit> {
  const unit = await em.findOneOrFail(SalesUnit, { msn });
  assertSalesUnitAcceptsPayments(unit);
  return unit;
}

export function assertSalesUnitAcceptsPayments(unit: Pick<SalesUnit, 'msn' | 'status'>): void {
  if (unit.status !== 'ACTIVE') {
    throw new AppError('SALES_UNIT_DEACTIVATED', `Sales unit ${unit.msn} is deactivated and takes no new payments`, [
      { name: 'Merchant-Serial-Number', reason: 'The sales unit is deactivated' },
    ]);
  }
}
