import { isValidNorwegianAccountNumber } from '../business-registry/org-number.js';
import type { ErrorDetail } from '../platform/errors/app-error.js';
import { decodeBase64, decodeImage, ImageRejected } from '../platform/images/decode-image.js';
import type { ProductType } from './product-order.entity.js';

/** What a product order asks for, whichever interface it came by (management or the deprecated partner API). */
export interface ProductOrderCommand {
  orgNumber: string;
  /** The request field that carries the organisation number: `businessIdentifier.id` or `orgno`. */
  orgNumberField: string;
  productType: ProductType;
  productUseCase?: string;
  salesUnitName?: string;
  salesUnitLogo?: string;
  settlementAccountNumber?: string;
  pricePackageId?: string;
  annualTurnover?: number;
  intendedPurpose?: string;
  website?: Record<string, unknown>;
  complianceData?: Record<string, unknown>;
}

/** Spec 3: letters, marks, digits, parentheses, hyphen, underscore, plus, whitespace, dot; 1 to 30. */
export const SALES_UNIT_NAME_PATTERN = /^[\p{L}\p{M}\d()\-_+\s.]{1,30}$/u;
/** management-v1.yaml `website.url`: an https URL of a public host. */
export const WEBSITE_URL_PATTERN = /^(https:\/\/)[a-z0-9]+([-.]{1}[a-z0-9]+)*\.[a-z]{2,5}(:[0-9]{1,5})?(\/.*)?$/;

/**
 * The logo rules (spec 3): a PNG, at least 100 x 100 px, its longest side at most 1000 px. A base64 text that is
 * not such a PNG is refused with the reason.
 */
export function logoProblem(field: string, base64: string): ErrorDetail | undefined {
  try {
    const image = decodeImage(decodeBase64(base64), ['png']);
    if (image.width < 100 || image.height < 100) return { name: field, reason: 'Must be at least 100 x 100 px' };
    if (Math.max(image.width, image.height) > 1000) return { name: field, reason: 'The longest side must be at most 1000 px' };
    return undefined;
  } catch (error) {
    if (error instanceof ImageRejected) return { name: field, reason: error.message };
    throw error;
  }
}

/** Rules about one field each that JSON Schema cannot say. */
export function productOrderFieldProblems(body: Partial<ProductOrderCommand>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (typeof body.salesUnitName === 'string' && !SALES_UNIT_NAME_PATTERN.test(body.salesUnitName)) {
    details.push({ name: 'salesUnitName', reason: 'Must be 1 to 30 letters, digits, spaces or ( ) - _ + .' });
  }
  if (typeof body.salesUnitLogo === 'string') {
    const problem = logoProblem('salesUnitLogo', body.salesUnitLogo);
    if (problem) details.push(problem);
  }
  if (typeof body.settlementAccountNumber === 'string' && /^\d{11}$/.test(body.settlementAccountNumber)) {
    if (!isValidNorwegianAccountNumber(body.settlementAccountNumber)) {
      details.push({ name: 'settlementAccountNumber', reason: 'Not a valid Norwegian account number (MOD11 check digit)' });
    }
  }
  return details;
}

/** `pricePackageId` applies only to SVC_PA_NETT and SVC_I_KASSA (FACTS §9). */
export function productOrderCrossFieldProblems(body: Partial<ProductOrderCommand>): ErrorDetail[] {
  if (body.pricePackageId && body.productType && body.productType !== 'SVC_PA_NETT' && body.productType !== 'SVC_I_KASSA') {
    return [{ name: 'pricePackageId', reason: 'Applies only to productType SVC_PA_NETT and SVC_I_KASSA' }];
  }
  return [];
}

/** SVC_PA_NETT needs `website` and `complianceData`; without them the merchant enters them by hand. */
export function needsManualEntry(command: Pick<ProductOrderCommand, 'productType' | 'website' | 'complianceData'>): boolean {
  return command.productType === 'SVC_PA_NETT' && (!command.website || !command.complianceData);
}
