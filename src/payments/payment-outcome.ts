/**
 * What became of a payment, one per payment: the first that holds of refunded, captured, cancelled, expired,
 * aborted, reserved, pending. The one rule for the search's outcome filter and the dashboard's totals, in SQL so
 * both count on the server; a CREATED payment past its expiry counts as expired (as every read shows it).
 */
export type PaymentOutcome = 'PENDING' | 'RESERVED' | 'CAPTURED' | 'REFUNDED' | 'CANCELLED' | 'EXPIRED' | 'ABORTED';

/** The outcome of the `payment` row as a SQL expression; its one parameter is the clock's now. */
export const PAYMENT_OUTCOME_SQL = `case
  when refunded_amount > 0 then 'REFUNDED'
  when captured_amount > 0 then 'CAPTURED'
  when cancelled_amount > 0 or state = 'TERMINATED' then 'CANCELLED'
  when state = 'EXPIRED' or (state = 'CREATED' and expires_at <= ?) then 'EXPIRED'
  when state = 'ABORTED' then 'ABORTED'
  when state = 'AUTHORIZED' then 'RESERVED'
  else 'PENDING' end`;
