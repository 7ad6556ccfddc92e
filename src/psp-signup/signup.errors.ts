import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals of the PSP signup API (FACTS §7); the body is `{type, title, status, detail, instance}`. */
export const signupErrors = defineErrors('psp-signup', {
  PSP_SIGNUP_MERCHANT_NOT_FOUND: { status: 404, title: 'Merchant not found' },
  PSP_SIGNUP_MERCHANT_DEACTIVATED: { status: 400, title: 'Merchant is deactivated', replayable: true },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof signupErrors, CatalogueEntry> {}
}
