/**
 * A read of the payment table, whether the ORM wrote it (`from "payment"`) or plain SQL did (`from payment`); not
 * `payment_event` and the other tables that share the prefix.
 */
const PAYMENT_READ = /\bfrom\s+"?payment"?(?![\w"])/i;

export function readsPayments(statements: readonly string[]): boolean {
  return statements.some((sql) => PAYMENT_READ.test(sql));
}
