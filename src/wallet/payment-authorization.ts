import type { Em } from '../platform/db/orm.js';
import { recordPaymentEvent } from '../payments/payment-event.recorder.js';
import type { Payment } from '../payments/payment.entity.js';
import { assertTransition } from '../payments/payment.transitions.js';
import type { TestUser } from './test-user.entity.js';

/** The user approved: the whole amount is reserved, and the profile is shared when a scope was asked for. */
export function authorizePayment(em: Em, payment: Payment, user: TestUser, now: Date): void {
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

/** A payment can be acted on by its user only while it is CREATED and before it expires. */
export function awaitsUser(payment: Payment, now: Date): boolean {
  return payment.state === 'CREATED' && payment.expiresAt.getTime() > now.getTime();
}
