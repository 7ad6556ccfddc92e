import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/**
 * The management interface's refusals (FACTS §9). The spec shows `CustomErrorCode` in `extraDetails` but lists no
 * codes ("not shown"); these are ours, stable, one per refusal.
 */
export const managementErrors = defineErrors('management', {
  MERCHANT_NOT_FOUND: { status: 404, title: 'Merchant not found', vippsCode: '1404' },
  SALES_UNIT_NOT_FOUND: { status: 404, title: 'Sales unit not found', vippsCode: '2404' },
  MERCHANT_CONSENT_MISSING: { status: 403, title: 'The merchant has not consented to share its data', vippsCode: '1403' },
  PARTNER_ONLY: { status: 403, title: 'Only a partner may use this operation', vippsCode: '9403' },
  PRODUCT_ORDER_NOT_FOUND: { status: 404, title: 'Product order not found', vippsCode: '3404' },
  PRODUCT_ORDER_ALREADY_SUBMITTED: { status: 409, title: 'Product order already submitted', vippsCode: '3409' },
  PRICE_PACKAGE_NOT_FOUND: { status: 400, title: 'Unknown price package', vippsCode: '3401' },
  PRICE_PACKAGE_NOT_APPLICABLE: { status: 400, title: 'Price package does not apply to this product type', vippsCode: '3402' },
  PRODUCT_ORDER_INVALID: { status: 400, title: 'Invalid product order', vippsCode: '3400' },
  SALES_UNIT_UPDATE_INVALID: { status: 400, title: 'Invalid sales unit update', vippsCode: '2400' },
  /** The deprecated partner API: the order is well formed but cannot be made (registry, price package). */
  PRODUCT_ORDER_UNPROCESSABLE: { status: 422, title: 'Unprocessable Entity', vippsCode: '3422' },
  PARTNER_NOT_CONNECTED: { status: 400, title: 'The partner is not connected to the merchant', vippsCode: '1400' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof managementErrors, CatalogueEntry> {}
}
