import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals of the PSP API (FACTS §6); the body is the PSP error array with `pspCode` as `errorCode`. */
export const pspErrors = defineErrors('psp', {
  PSP_MERCHANT_NOT_ACTIVE: { status: 400, title: 'Merchant not active for PSP payments', pspCode: '21' },
  PSP_TRANSACTION_EXISTS: { status: 400, title: 'PSP transaction id already exists', pspCode: '44' },
  PSP_ORDER_EXISTS: { status: 400, title: 'Merchant order id already exists', pspCode: '99' },
  PSP_SKIP_LANDING_PAGE_NOT_ALLOWED: { status: 400, title: 'Skip landing page not allowed', pspCode: '51' },
  PSP_TRANSACTION_NOT_FOUND: { status: 404, title: 'PSP transaction not found', pspCode: '42' },
  PSP_INVALID_TRANSACTION: { status: 400, title: 'Invalid transaction in status update', pspCode: '42' },
  PSP_APPROVE_FAILED: { status: 400, title: 'Approve failed', pspCode: '51' },
  PSP_USER_TOKEN_INVALID: { status: 400, title: 'User token invalid or expired', pspCode: '121' },
  PSP_AGREEMENT_NOT_FOUND: { status: 400, title: 'Agreement not found', pspCode: '122' },
  PSP_AGREEMENT_STOPPED: { status: 400, title: 'Agreement is stopped', pspCode: '123' },
  PSP_AGREEMENT_OTHER_SALES_UNIT: { status: 400, title: 'Agreement belongs to another sales unit', pspCode: '124' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof pspErrors, CatalogueEntry> {}
}
