import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals of back-office actions, whichever way in (command line or operator mutations). */
export const operatorErrors = defineErrors('operator', {
  OPERATOR_NOT_FOUND: { status: 404, title: 'No such partner, merchant, sales unit, PSP or client' },
  OPERATOR_CONFLICT: { status: 409, title: 'It exists already' },
  OPERATOR_INVALID: { status: 400, title: 'Invalid operator input' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof operatorErrors, CatalogueEntry> {}
}
