import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals that come from the state of a sales unit, whatever the interface. */
export const merchantErrors = defineErrors('merchants', {
  SALES_UNIT_DEACTIVATED: {
    status: 403,
    title: 'Sales unit is deactivated',
    vippsCode: '3010',
    checkoutCode: 'Session-00403',
    pspCode: '21',
  },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof merchantErrors, CatalogueEntry> {}
}
