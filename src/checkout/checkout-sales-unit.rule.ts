import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { assertSalesUnitAcceptsPayments } from '../merchants/sales-unit-status.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';

/**
 * The one rule "this sales unit may open a new checkout session": asked by both faces (through the session
 * service) before a session is created. The unit must exist and take payments: a DEACTIVATED unit refuses a
 * session as it refuses every other new payment (the merchants domain's rule, not a copy of it).
 */
export async function assertSalesUnitMayOpenSession(em: Em, msn: string): Promise<void> {
  const unit = await em.findOne(SalesUnit, { msn }, { fields: ['msn', 'status'] });
  if (!unit) {
    throw new AppError('CHECKOUT_SALES_UNIT_NOT_ALLOWED', `Sales unit ${msn} may not open checkout sessions`, [
      { name: 'Merchant-Serial-Number', reason: 'The sales unit may not open checkout sessions' },
    ]);
  }
  assertSalesUnitAcceptsPayments(unit);
}
