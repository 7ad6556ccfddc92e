import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/**
 * Refusals of the checkout API (FACTS §8). The REST body is `CheckoutProblemDetails` with `errorCode`: the public
 * codes where the definition shows one (`Session-00100`), ours in the same form otherwise.
 */
export const checkoutErrors = defineErrors('checkout', {
  /** No session of the caller's sales unit with that reference (another merchant's is indistinguishable). */
  CHECKOUT_SESSION_NOT_FOUND: { status: 404, title: 'Not Found', checkoutCode: 'Session-00100' },
  /** The merchant used the reference before, for a session or a payment. */
  CHECKOUT_REFERENCE_ALREADY_USED: { status: 409, title: 'Conflict', checkoutCode: 'Session-00409', replayable: true },
  /** The session is past the point where the merchant may change or expire it (the buyer paid, or it ended). */
  CHECKOUT_SESSION_NOT_MODIFIABLE: { status: 409, title: 'Conflict', checkoutCode: 'Session-00410' },
  /** The sales unit may not open a session now (see checkout-sales-unit.rule.ts). */
  CHECKOUT_SALES_UNIT_NOT_ALLOWED: { status: 403, title: 'Forbidden', checkoutCode: 'Session-00403' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof checkoutErrors, CatalogueEntry> {}
}
