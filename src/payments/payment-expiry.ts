import type { NewEvent } from '../platform/events/new-event.js';
import { paymentEvent } from './payment-event.recorder.js';
import type { Payment } from './payment.entity.js';
import { assertTransition, type PaymentState } from './payment.transitions.js';

/**
 * A payment nobody acted on is expired from its `expiresAt` on, whether or not the expiry job has swept it yet:
 * the job only makes it durable. Every rule that asks "is this payment still live?" asks here.
 */
export function isOverdue(payment: Pick<Payment, 'state' | 'expiresAt'>, now: Date): boolean {
  return payment.state === 'CREATED' && payment.expiresAt.getTime() <= now.getTime();
}

/** The one "is this payment still live" rule: its user can still approve or reject it. */
export function awaitsUser(payment: Pick<Payment, 'state' | 'expiresAt'>, now: Date): boolean {
  return payment.state === 'CREATED' && !isOverdue(payment, now);
}

/** The state a caller sees: an overdue CREATED payment is shown as the EXPIRED payment it already is. */
export function effectiveState(payment: Pick<Payment, 'state' | 'expiresAt'>, now: Date): PaymentState {
  return isOverdue(payment, now) ? 'EXPIRED' : payment.state;
}

/**
 * CREATED -> EXPIRED: the payment changed in memory, and its EXPIRED event for the write runner to write. The expiry
 * job and any verb that finds an overdue payment both expire it here, so both write the same.
 */
export function expiry(payment: Payment, now: Date): NewEvent {
  assertTransition(payment.state, 'EXPIRED');
  payment.state = 'EXPIRED';
  payment.updatedAt = now;
  return paymentEvent(payment, 'EXPIRED', payment.amount, null, now);
}
