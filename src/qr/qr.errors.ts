import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals of the QR API (FACTS §5), rendered with `invalidParams`. */
export const qrErrors = defineErrors('qr', {
  QR_NOT_FOUND: { status: 404, title: 'Not Found' },
  QR_ALREADY_EXISTS: { status: 409, title: 'Conflict' },
  QR_FORMAT_NOT_ACCEPTABLE: { status: 415, title: 'Unsupported Media Type' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof qrErrors, CatalogueEntry> {}
}
