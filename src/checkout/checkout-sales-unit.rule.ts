import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';

/**
 * The one rule "this sales unit may open a new checkout session": asked by both faces (through the session
 * service) before a session is created. Today a sales unit may when it exists; a rule of another domain (a
 * deactivated merchant or sales unit) adds its refusal here and nowhere else.
 */
export async function assertSalesUnitMayOpenSession(em: Em, msn: string): Promise<void> {
  const unit = await em.findOne(SalesUnit, { msn }, { fields: ['msn'] });
  if (!unit) {
    throw new AppError('CHECKOUT_SALES_UNIT_NOT_ALLOWED', `Sales unit ${msn} may not open checkout sessions`, [
      { name: 'Merchant-Serial-Number', reason: 'The sales unit may not open checkout sessions' },
    ]);
  }
}
