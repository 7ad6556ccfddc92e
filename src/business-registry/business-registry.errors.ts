import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Why an organisation number cannot become a merchant; each interface renders these in its own body. */
export const businessRegistryErrors = defineErrors('business-registry', {
  ORG_NUMBER_MALFORMED: { status: 400, title: 'Invalid organisation number' },
  ORG_NUMBER_NOT_FOUND: { status: 400, title: 'Organisation number not found in the business registry' },
  ORG_NUMBER_SUB_ENTITY: { status: 400, title: 'Organisation number is a sub entity' },
  ORG_NUMBER_NOT_ACTIVE: { status: 400, title: 'Organisation is not active in the business registry' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof businessRegistryErrors, CatalogueEntry> {}
}
