import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals of the settlement ledger / report API (FACTS §11); the body is `{errorCode, errorMessage, contextId}`. */
export const ledgerErrors = defineErrors('ledgers', {
  /** No ledger with this id that the caller's keys cover: unknown, or another merchant's (indistinguishable). */
  LEDGER_NOT_FOUND: { status: 404, title: 'Not Found' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof ledgerErrors, CatalogueEntry> {}
}
