import type { Em } from '../platform/db/orm.js';
import type { CheckoutSession } from './checkout-session.entity.js';
import { moveSession } from './checkout-session.recorder.js';
import type { SessionPayment } from './checkout-session.view.js';

/** A session not completed within its hour (FACTS §8) is expired from `expiresAt` on; the job makes it durable. */
export function isSessionOverdue(session: Pick<CheckoutSession, 'state' | 'expiresAt'>, now: Date): boolean {
  return (session.state === 'SessionCreated' || session.state === 'PaymentInitiated') && session.expiresAt.getTime() <= now.getTime();
}

/**
 * Expires a locked session if it is overdue, with its event and the merchant's callback, in the caller's
 * transaction: the expiry job and a buyer acting on an overdue session both expire it here. True when it did.
 */
export function expireSessionIfOverdue(em: Em, session: CheckoutSession, payment: SessionPayment | undefined, now: Date): boolean {
  if (!isSessionOverdue(session, now)) return false;
  moveSession(em, session, 'SessionExpired', payment, now);
  return true;
}
