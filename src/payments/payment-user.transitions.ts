import type { Em } from '../platform/db/orm.js';
import { recordPaymentEvent } from './payment-event.recorder.js';
import type { Payment } from './payment.entity.js';
import { assertTransition } from './payment.transitions.js';

/** Who approved: the wallet user's phone number and the `sub` their profile is shared under. */
export interface ApprovingUser {
  phoneNumber: string;
  sub: string;
}

/** The user approved: the whole amount is reserved, and the profile is shared when a scope was asked for. */
export function authorizePayment(em: Em, payment: Payment, user: ApprovingUser, now: Date): void {
  assertTransition(payment.state, 'AUTHORIZED');
  payment.state = 'AUTHORIZED';
  payment.authorizedAmount = payment.amount;
  payment.authorizedAt = now;
  payment.customerPhoneNumber = user.phoneNumber;
  if (payment.profileScope) payment.profileSub = user.sub;
  payment.updatedAt = now;
  recordPaymentEvent(em, payment, 'AUTHORIZED', payment.amount, null, now);
}

/** The user said no: the payment ends as ABORTED. */
export function abortPayment(em: Em, payment: Payment, now: Date): void {
  assertTransition(payment.state, 'ABORTED');
  payment.state = 'ABORTED';
  payment.updatedAt = now;
  recordPaymentEvent(em, payment, 'ABORTED', payment.amount, null, now);
}
