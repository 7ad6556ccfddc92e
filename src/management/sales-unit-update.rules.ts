import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import type { SalesUnitStatus } from '../merchants/sales-unit.entity.js';
import { logoProblem } from './product-order.rules.js';

/** A change of a sales unit's name, logo or status; absent parts stay as they are. */
export interface SalesUnitUpdate {
  name?: string;
  salesUnitLogo?: string;
  status?: SalesUnitStatus;
}

/** Spec 3: a sales unit's name is 1 to 50 characters. */
export const SALES_UNIT_NAME_MAX_LENGTH = 50;
/** The base64 text of a logo (a PNG of at most 1000 px a side fits well within it). */
export const SALES_UNIT_LOGO_MAX_LENGTH = 2_000_000;

/**
 * The rules of a sales unit update, applied by the service whichever face asks (`PATCH /management/v1/sales-units/
 * {msn}`, the graph's `updateSalesUnit`): every failing field at once, then an update that changes nothing.
 */
export function refuseSalesUnitUpdate(update: SalesUnitUpdate): void {
  const problems: ErrorDetail[] = [];
  const { name, salesUnitLogo } = update;
  if (name !== undefined && (name.length < 1 || name.length > SALES_UNIT_NAME_MAX_LENGTH)) {
    problems.push({ name: 'name', reason: `Must be 1 to ${SALES_UNIT_NAME_MAX_LENGTH} characters` });
  }
  if (salesUnitLogo !== undefined) {
    const problem =
      salesUnitLogo.length > SALES_UNIT_LOGO_MAX_LENGTH
        ? { name: 'salesUnitLogo', reason: `Must be at most ${SALES_UNIT_LOGO_MAX_LENGTH} characters` }
        : logoProblem('salesUnitLogo', salesUnitLogo);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) throw AppError.validation(problems);
  if (name === undefined && salesUnitLogo === undefined && update.status === undefined) {
    throw new AppError('SALES_UNIT_UPDATE_INVALID', 'The update changes nothing', [
      { name: 'body', reason: 'Give name, salesUnitLogo or status' },
    ]);
  }
}
