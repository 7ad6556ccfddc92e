import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { SalesUnit } from './sales-unit.entity.js';
import './merchants.errors.js';

/** What a payment's creation asks of its sales unit. */
export interface SalesUnitTerms {
  msn: string;
  status: SalesUnit['status'];
  longLivingPaymentsAllowed: boolean;
}

/**
 * The one rule every kind of payment asks before it creates a payment: a DEACTIVATED sales unit refuses new
 * payments, on every interface, until it is ACTIVE again. Returns the unit's terms (read once, so a caller that
 * needs more of them reads nothing else). Read as a row, not an entity: nothing here changes the unit, and the
 * profile of a create showed the unit's hydration and its change-set check at the payment's flush among the ORM's
 * top costs.
 */
export async function requireSalesUnitAcceptsPayments(em: Em, msn: string): Promise<SalesUnitTerms> {
  const [row] = await em.execute<{ msn: string; status: SalesUnit['status']; long_living_payments_allowed: boolean }[]>(
    'select msn, status, long_living_payments_allowed from sales_unit where msn = ? limit 1',
    [msn],
  );
  if (!row) throw new Error(`Sales unit ${msn} does not exist`);
  const unit = { msn: row.msn, status: row.status, longLivingPaymentsAllowed: row.long_living_payments_allowed };
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
