import Type from 'typebox';
import type { ErrorDetail } from '../platform/errors/app-error.js';

/**
 * An order line's tax, as Order Management 2.1 gives it: `taxPercentage` in whole percent (25) or `taxRate` in
 * hundredths of a percent (2500; 1250 is 12.5 %, which a whole percent cannot say). One of the two must be set;
 * both may be, when they say the same. ePayment receipts, order management and checkout order lines share these.
 */
export const orderLineTax = {
  taxPercentage: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  taxRate: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
};

interface LineTax {
  taxPercentage?: unknown;
  taxRate?: unknown;
}

/**
 * The rule a schema cannot say, for each line of `lines` (named `${at}[i]`): a tax is given, and two given agree.
 * Lines or values the schema refused (not objects, not integers) are left to its details.
 */
export function orderLineTaxProblems(lines: unknown, at: string): ErrorDetail[] {
  if (!Array.isArray(lines)) return [];
  const problems: ErrorDetail[] = [];
  lines.forEach((line: unknown, i) => {
    if (typeof line !== 'object' || line === null) return;
    const { taxPercentage, taxRate } = line as LineTax;
    if (taxPercentage === undefined && taxRate === undefined) {
      problems.push({ name: `${at}[${i}].taxPercentage`, reason: 'Give taxPercentage or taxRate' });
    } else if (Number.isInteger(taxPercentage) && Number.isInteger(taxRate) && (taxPercentage as number) * 100 !== taxRate) {
      problems.push({
        name: `${at}[${i}].taxRate`,
        reason: `Must say what taxPercentage says: ${taxPercentage as number} % is taxRate ${(taxPercentage as number) * 100}`,
      });
    }
  });
  return problems;
}

/**
 * A stored line's tax in both units, for the graph: each as given, else derived from the other (a taxRate that is
 * no whole percent has no taxPercentage).
 */
export function lineTaxOf(line: LineTax): { taxPercentage: number | null; taxRate: number | null } {
  const percentage = typeof line.taxPercentage === 'number' ? line.taxPercentage : null;
  const rate = typeof line.taxRate === 'number' ? line.taxRate : null;
  return {
    taxPercentage: percentage ?? (rate !== null && rate % 100 === 0 ? rate / 100 : null),
    taxRate: rate ?? (percentage !== null ? percentage * 100 : null),
  };
}
