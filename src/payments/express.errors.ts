import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** The refusals of Express in ePayment (FACTS §14.1), with the codes of the platform's catalogue (§14.3). */
export const expressErrors = defineErrors('payments', {
  EXPRESS_PAYMENT_METHOD: { status: 400, title: 'Invalid payment method type', vippsCode: '4160' },
  EXPRESS_SCOPE: { status: 400, title: 'Invalid scope', vippsCode: '4080' },
  EXPRESS_SHIPPING_OPTIONS_MISSING: { status: 400, title: 'Missing required parameter', vippsCode: '4140' },
  EXPRESS_NOT_ALLOWED: { status: 400, title: 'Express not allowed', vippsCode: '5020' },
  EXPRESS_APPROVE_NOT_ALLOWED: { status: 400, title: 'Approve not allowed', vippsCode: '10020' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof expressErrors, CatalogueEntry> {}
}
