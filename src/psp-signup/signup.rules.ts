import type { Em } from '../platform/db/orm.js';
import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import { decodeBase64, decodeImage, ImageRejected } from '../platform/images/decode-image.js';
import { requireActiveMainEntity } from '../business-registry/business-registry.service.js';

/** The logo (FACTS §7): a real PNG (decoded, not sniffed), at least 100 x 100, longest side up to 1000 px. */
export function logoProblem(logo: string): string | undefined {
  try {
    const image = decodeImage(decodeBase64(logo), ['png']);
    if (image.width < 100 || image.height < 100) return `Must be at least 100 x 100 pixels (is ${image.width} x ${image.height})`;
    if (Math.max(image.width, image.height) > 1000)
      return `The longest side must be at most 1000 pixels (is ${Math.max(image.width, image.height)})`;
    return undefined;
  } catch (error) {
    if (error instanceof ImageRejected) return error.message;
    throw error;
  }
}

export function logoDetails(logo: string | undefined): ErrorDetail[] {
  if (logo === undefined) return [];
  const problem = logoProblem(logo);
  return problem ? [{ name: 'logo', reason: problem }] : [];
}

/** Organisation numbers of other countries, checked as far as practical: their national formats. */
const FOREIGN_FORMATS: Record<string, { pattern: RegExp; reason: string }> = {
  DK: { pattern: /^\d{8}$/, reason: 'A Danish CVR number is 8 digits' },
  SE: { pattern: /^\d{6}-?\d{4}$/, reason: 'A Swedish organisationsnummer is 10 digits (NNNNNN-NNNN)' },
  FI: { pattern: /^\d{7}-\d$/, reason: 'A Finnish Y-tunnus is 7 digits, a hyphen and a check digit' },
};

/**
 * The organisation number in its country's format; a Norwegian one must be a valid MOD11 number of an active main
 * entity in the business registry (each other case refused with its own message).
 */
export async function checkOrganizationNumber(em: Em, organizationNumber: string, country: string): Promise<void> {
  if (country === 'NO') {
    await requireActiveMainEntity(em, organizationNumber, 'organizationNumber');
    return;
  }
  const format = FOREIGN_FORMATS[country];
  if (format && !format.pattern.test(organizationNumber)) {
    throw AppError.validation([{ name: 'organizationNumber', reason: format.reason }]);
  }
}
