import type { NewEvent } from '../platform/events/new-event.js';
import { paymentEvent } from './payment-event.recorder.js';
import type { Payment } from './payment.entity.js';
import { assertTransition } from './payment.transitions.js';
import type { ShippingDetails } from './express-shipping.js';
import type { PaygraphEnv } from '../config.js';
import { approvalFailure, ApprovalDeclined } from './test-failure-triggers.js';

/** Who approved: the wallet user's phone number and the `sub` their profile is shared under. */
export interface ApprovingUser {
  phoneNumber: string;
  sub: string;
  /** YYYY-MM-DD, read (approving-user.ts) when the payment has a `minimumUserAge`; null: the user has no profile. */
  birthdate?: string | null;
}

/** Whole years from `birthdate` (YYYY-MM-DD) to `now`, in UTC. */
export function ageOn(birthdate: string, now: Date): number {
  const [year, month, day] = birthdate.split('-').map(Number) as [number, number, number];
  const beforeBirthday = now.getUTCMonth() + 1 < month || (now.getUTCMonth() + 1 === month && now.getUTCDate() < day);
  return now.getUTCFullYear() - year - (beforeBirthday ? 1 : 0);
}

/**
 * The user approved (its event returned for the write runner): the whole amount is reserved, and the profile is shared
 * when a scope was asked for. An Express payment is approved with the address and option the user chose (FACTS
 * §14.1), recorded in the same write: its amount becomes the create's amount plus the option's, and that total is
 * reserved and carried by the AUTHORIZED event (the CREATED event keeps the create's amount).
 *
 * In the test environment a total (shipping included) that is a failure trigger is declined instead
 * (`ApprovalDeclined`, thrown before anything changes): the payment stays CREATED with no event, and the caller's
 * transaction, with whatever the approval recorded beside it (the test user's count, a consent), rolls back.
 */
export function authorizePayment(payment: Payment, user: ApprovingUser, now: Date, env: PaygraphEnv, shipping?: ShippingDetails): NewEvent {
  assertTransition(payment.state, 'AUTHORIZED');
  if (Boolean(payment.shipping) !== Boolean(shipping)) {
    throw new Error(payment.shipping ? 'An Express payment is approved with its shipping' : 'Only an Express payment has shipping');
  }
  refuseUnderage(payment, user, now);
  const failure = approvalFailure(env, payment.amount + (shipping?.shippingCost ?? 0));
  if (failure) throw new ApprovalDeclined(failure);
  if (shipping) {
    payment.amount += shipping.shippingCost;
    payment.shippingDetails = shipping;
  }
  payment.state = 'AUTHORIZED';
  payment.authorizedAmount = payment.amount;
  payment.authorizedAt = now;
  payment.customerPhoneNumber = user.phoneNumber;
  if (payment.profileScope) payment.profileSub = user.sub;
  payment.updatedAt = now;
  return paymentEvent(payment, 'AUTHORIZED', payment.amount, null, now);
}

/**
 * `minimumUserAge` (FACTS §14.4): a younger user may not approve; their age is counted on `now`, the sales unit's
 * (test) clock. The merchant hears 7010; the user is told why, never that their number is wrong.
 */
function refuseUnderage(payment: Payment, user: ApprovingUser, now: Date): void {
  const minimum = payment.minimumUserAge;
  if (minimum === null || minimum === undefined) return;
  if (user.birthdate === undefined) throw new Error('authorizePayment needs the birth date of the user of a payment with minimumUserAge');
  if (user.birthdate !== null && ageOn(user.birthdate, now) >= minimum) return;
  throw new ApprovalDeclined(
    { reason: 'UNDER_MINIMUM_AGE', words: `You must be at least ${minimum} years old to pay for this.` },
    'USER_UNDER_MINIMUM_AGE',
    [{ name: 'customer', reason: `The user is younger than minimumUserAge (${minimum})` }],
  );
}

/** The user said no: the payment ends as ABORTED. */
export function abortPayment(payment: Payment, now: Date): NewEvent {
  assertTransition(payment.state, 'ABORTED');
  payment.state = 'ABORTED';
  payment.updatedAt = now;
  return paymentEvent(payment, 'ABORTED', payment.amount, null, now);
}
