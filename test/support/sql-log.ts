/**
 * A read of the payment table, whether the ORM wrote it (`from "payment"`) or plain SQL did (`from payment`); not
 * `payment_event` and the other tables that share the prefix.
 */
const PAYMENT_READ = /\bfrom\s+"?payment"?(?![\w"])/i;

/**
 * The deliverer's claim (on PGlite it runs on the request's connection, so it is in the log) names the payment table
 * for the authorized webhook's delivery-time read (payment-event.types.ts), and reads a payment only for an
 * AUTHORIZED event: it is not a read of the operation under test.
 */
const DELIVERY_CLAIM = /\bpending_receivers\b/;

export function readsPayments(statements: readonly string[]): boolean {
  return statements.some((sql) => PAYMENT_READ.test(sql) && !DELIVERY_CLAIM.test(sql));
}
