import type { Payment } from './payment.entity.js';

/**
 * What a payment's state and aggregate leave for each modification: one rule, applied by the verbs
 * (payment-modification.service.ts) and shown on the graph (`Payment.allowedActions`), from which the dashboard offers
 * its actions. The 180- and 365-day periods are the verbs' alone: they depend on the sales unit's clock at the request.
 */
export interface PaymentAllowances {
  /** What a capture may move: reserved, and neither captured nor cancelled. */
  capturable: number;
  /** What a refund may move: captured and not refunded. */
  refundable: number;
  /** What a cancel does now: ends the payment before approval, releases once what is not captured after it; else none. */
  cancel: 'TERMINATE' | 'RELEASE' | null;
}

type Amounts = Pick<Payment, 'state' | 'authorizedAmount' | 'capturedAmount' | 'cancelledAmount' | 'refundedAmount'>;

export function paymentAllowances(payment: Amounts): PaymentAllowances {
  const authorized = payment.state === 'AUTHORIZED';
  const capturable = authorized && payment.cancelledAmount === 0 ? Math.max(payment.authorizedAmount - payment.capturedAmount, 0) : 0;
  const refundable = authorized ? Math.max(payment.capturedAmount - payment.refundedAmount, 0) : 0;
  const cancel = payment.state === 'CREATED' ? 'TERMINATE' : capturable > 0 ? 'RELEASE' : null;
  return { capturable, refundable, cancel };
}
