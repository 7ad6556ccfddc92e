import type { Config } from '../config.js';
import { effectiveState } from './payment-expiry.js';
import type { Payment } from './payment.entity.js';
import type { PaymentState } from './payment.transitions.js';
import type { ShippingDetails } from './express-shipping.js';
import { userDetailsOf, type UserDetails, type UserDetailsProfile } from '../user-profiles/user-details.js';

/** A payment as both faces show it: plain data, safe to store as an idempotent response. */
export interface PaymentView {
  id: string;
  msn: string;
  reference: string;
  pspReference: string;
  state: PaymentState;
  currency: Payment['currency'];
  amount: number;
  authorizedAmount: number;
  capturedAmount: number;
  cancelledAmount: number;
  refundedAmount: number;
  paymentMethodType: Payment['paymentMethodType'];
  cardBin: string | null;
  userFlow: Payment['userFlow'];
  profileSub: string | null;
  redirectUrl: string | null;
  paymentDescription: string | null;
  metadata: Record<string, string> | null;
  /** Express: the address and option the user chose, once AUTHORIZED. */
  shippingDetails: ShippingDetails | null;
  /** The consented profile, once AUTHORIZED with a scope (read from the profile, never stored on the payment). */
  userDetails: UserDetails | null;
  /** When shippingDetails and userDetails were removed after their retention (README, Data lifecycle); null: not removed. */
  personalDataRemovedAt: string | null;
  createdAt: string;
  expiresAt: string;
}

/** A payment's `profile` in the graph: the sub it reports, and the payment it belongs to (for what else hangs on it). */
export interface PaymentProfileView {
  sub: string | null;
  paymentId: string;
}

/** What a view is made of: the columns of a payment that are ever shown. */
export type PaymentFields = Pick<
  Payment,
  | 'id'
  | 'msn'
  | 'reference'
  | 'pspReference'
  | 'state'
  | 'currency'
  | 'amount'
  | 'authorizedAmount'
  | 'capturedAmount'
  | 'cancelledAmount'
  | 'refundedAmount'
  | 'paymentMethodType'
  | 'cardBin'
  | 'userFlow'
  | 'profileSub'
  | 'paymentDescription'
  | 'metadata'
  | 'approvalToken'
  | 'qrFormat'
  | 'createdAt'
  | 'expiresAt'
  | 'profileScope'
  | 'shippingDetails'
  | 'personalDataRemovedAt'
> & {
  /** The profile of `profileSub`, read with the payment (`userDetailsProfileSql`); absent, no userDetails. */
  userProfile?: UserDetailsProfile | null;
};

export function toPaymentView(payment: PaymentFields, config: Pick<Config, 'publicUrl'>): PaymentView {
  return {
    id: payment.id,
    msn: payment.msn,
    reference: payment.reference,
    pspReference: payment.pspReference,
    state: payment.state,
    currency: payment.currency,
    amount: payment.amount,
    authorizedAmount: payment.authorizedAmount,
    capturedAmount: payment.capturedAmount,
    cancelledAmount: payment.cancelledAmount,
    refundedAmount: payment.refundedAmount,
    paymentMethodType: payment.paymentMethodType,
    cardBin: payment.cardBin ?? null,
    userFlow: payment.userFlow,
    profileSub: payment.profileSub ?? null,
    redirectUrl: redirectUrlOf(payment, config.publicUrl),
    paymentDescription: payment.paymentDescription ?? null,
    metadata: payment.metadata ?? null,
    shippingDetails: payment.shippingDetails ?? null,
    userDetails: payment.profileSub ? userDetailsOf(payment.profileScope ?? null, payment.userProfile ?? null) : null,
    personalDataRemovedAt: payment.personalDataRemovedAt ? payment.personalDataRemovedAt.toISOString() : null,
    createdAt: payment.createdAt.toISOString(),
    expiresAt: payment.expiresAt.toISOString(),
  };
}

/**
 * A payment as a read shows it at `now`: one past its expiry is EXPIRED even before the expiry job has swept it
 * (reads write nothing; the job or the next modification makes it durable, with its event).
 */
export function toPaymentViewAt(payment: PaymentFields, config: Pick<Config, 'publicUrl'>, now: Date): PaymentView {
  return toPaymentView({ ...payment, state: effectiveState(payment, now) }, config);
}

/** The wallet user's landing page for this payment; its `token` is what force approve presents. */
export function landingUrl(publicUrl: string, approvalToken: string): string {
  return `${publicUrl}/wallet/landing?token=${encodeURIComponent(approvalToken)}`;
}

/**
 * WEB_REDIRECT and NATIVE_REDIRECT open the landing page; QR returns the QR image of the landing page (or the
 * landing URL itself for `TEXT/TARGETURL`); PUSH_MESSAGE has none (FACTS §1.2).
 */
export function redirectUrlOf(payment: Pick<Payment, 'userFlow' | 'approvalToken' | 'qrFormat'>, publicUrl: string): string | null {
  switch (payment.userFlow) {
    case 'WEB_REDIRECT':
    case 'NATIVE_REDIRECT':
      return landingUrl(publicUrl, payment.approvalToken);
    case 'QR':
      return payment.qrFormat === 'TEXT/TARGETURL'
        ? landingUrl(publicUrl, payment.approvalToken)
        : `${publicUrl}/wallet/qr?token=${encodeURIComponent(payment.approvalToken)}`;
    case 'PUSH_MESSAGE':
      return null;
  }
}
