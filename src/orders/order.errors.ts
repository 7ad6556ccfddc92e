import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals of the order management API (FACTS §4), rendered with `invalidParams`. */
export const orderErrors = defineErrors('orders', {
  ORDER_NOT_FOUND: { status: 404, title: 'Order Not Found' },
  RECEIPT_ALREADY_SENT: { status: 409, title: 'Conflict' },
  IMAGE_ALREADY_EXISTS: { status: 409, title: 'Conflict' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof orderErrors, CatalogueEntry> {}
}
