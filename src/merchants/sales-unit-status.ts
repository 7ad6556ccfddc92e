import { AppError } from '../platform/errors/app-error.js';
import type { SalesUnit } from './sales-unit.entity.js';
import './merchants.errors.js';

/**
 * The rule as a condition on a `sales_unit` row (`status` column), for a create written as one statement
 * (payment-creation.statement.ts); it and `assertSalesUnitAcceptsPayments` say the same.
 */
export const SALES_UNIT_ACCEPTS_PAYMENTS_SQL = "status = 'ACTIVE'";

/**
 * The one rule every kind of payment asks before it creates a payment: a DEACTIVATED sales unit refuses new
 * payments, on every interface, until it is ACTIVE again.
 */
export function assertSalesUnitAcceptsPayments(unit: Pick<SalesUnit, 'msn' | 'status'>): void {
  if (unit.status !== 'ACTIVE') {
    throw new AppError('SALES_UNIT_DEACTIVATED', `Sales unit ${unit.msn} is deactivated and takes no new payments`, [
      { name: 'Merchant-Serial-Number', reason: 'The sales unit is deactivated' },
    ]);
  }
}
