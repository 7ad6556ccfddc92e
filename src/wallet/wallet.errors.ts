import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals of the simulated wallet user (force approve, FACTS §1.6). */
export const walletErrors = defineErrors('wallet', {
  APPROVE_FAILED: { status: 400, title: 'Approve failed', vippsCode: '10010' },
  CUSTOMER_NOT_FOUND: { status: 400, title: 'Customer not found', vippsCode: '7010' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof walletErrors, CatalogueEntry> {}
}
