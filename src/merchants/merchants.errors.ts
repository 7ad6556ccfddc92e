import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals that come from the state of a sales unit, whatever the interface. */
export const merchantErrors = defineErrors('merchants', {
  SALES_UNIT_DEACTIVATED: {
    status: 403,
    title: 'Sales unit is deactivated',
    // 5070 "payment cannot be created" (FACTS §14.3): 3010 is the catalogue's "internal error".
    vippsCode: '5070',
    checkoutCode: 'Session-00403',
    pspCode: '21',
  },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof merchantErrors, CatalogueEntry> {}
}
