import type { Config } from '../config.js';
import { effectiveState } from '../payments/payment-expiry.js';
import type { Payment } from '../payments/payment.entity.js';
import type { CheckoutAmount } from './checkout-session.types.js';
import type { CheckoutSession } from './checkout-session.entity.js';

/** The columns of a payment a session shows (its live `paymentDetails`). */
export type SessionPayment = Pick<
  Payment,
  'id' | 'state' | 'expiresAt' | 'currency' | 'amount' | 'authorizedAmount' | 'capturedAmount' | 'cancelledAmount' | 'refundedAmount'
>;

/** `paymentDetails.state` (FACTS §8): an aborted, expired or terminated payment shows TERMINATED. */
export type SessionPaymentState = 'CREATED' | 'AUTHORIZED' | 'TERMINATED';

/**
 * The session information (`SessionResponse`, FACTS §8): the body of `GET /checkout/v3/session/{reference}` and of
 * the merchant's callback. Transaction, user and shipping parts appear from `PaymentInitiated` on (once the session
 * has its payment), and `paymentDetails` follows the payment live.
 */
export interface SessionInfo {
  sessionId: string;
  merchantSerialNumber: string;
  reference: string;
  sessionState: CheckoutSession['state'];
  paymentMethod?: string;
  paymentDetails?: {
    amount: CheckoutAmount;
    state: SessionPaymentState;
    aggregate: {
      cancelledAmount: CheckoutAmount;
      capturedAmount: CheckoutAmount;
      refundedAmount: CheckoutAmount;
      authorizedAmount: CheckoutAmount;
    };
  };
  userInfo?: { sub: string; email: string | null };
  shippingDetails?: NonNullable<CheckoutSession['shippingDetails']>;
  billingDetails?: NonNullable<CheckoutSession['billingDetails']>;
  customConsentProvided?: boolean;
}

export function paymentDetailsState(payment: Pick<SessionPayment, 'state' | 'expiresAt'>, now: Date): SessionPaymentState {
  const state = effectiveState(payment, now);
  return state === 'CREATED' || state === 'AUTHORIZED' ? state : 'TERMINATED';
}

export function toSessionInfo(session: CheckoutSession, payment: SessionPayment | undefined, now: Date): SessionInfo {
  const info: SessionInfo = {
    sessionId: session.id,
    merchantSerialNumber: session.msn,
    reference: session.reference,
    sessionState: session.state,
  };
  if (!payment) return info;
  const money = (value: number): CheckoutAmount => ({ value, currency: payment.currency });
  info.paymentMethod = session.paymentMethod ?? 'Wallet';
  info.paymentDetails = {
    amount: money(payment.amount),
    state: paymentDetailsState(payment, now),
    aggregate: {
      cancelledAmount: money(payment.cancelledAmount),
      capturedAmount: money(payment.capturedAmount),
      refundedAmount: money(payment.refundedAmount),
      authorizedAmount: money(payment.authorizedAmount),
    },
  };
  if (session.userInfo) info.userInfo = session.userInfo;
  if (session.shippingDetails) info.shippingDetails = session.shippingDetails;
  if (session.billingDetails) info.billingDetails = session.billingDetails;
  if (session.customConsentProvided !== null) info.customConsentProvided = session.customConsentProvided;
  return info;
}

/** The create response: where the buyer goes and where the merchant polls. */
export function sessionLinks(config: Pick<Config, 'publicUrl'>, session: Pick<CheckoutSession, 'pageToken' | 'reference'>) {
  return {
    token: session.pageToken,
    checkoutFrontendUrl: checkoutPageUrl(config.publicUrl, session.pageToken),
    pollingUrl: `${config.publicUrl}/checkout/v3/session/${encodeURIComponent(session.reference)}`,
  };
}

export function checkoutPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/checkout/page?token=${encodeURIComponent(token)}`;
}
