import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import type { LiveReading, LiveState } from '../platform/events/wait-for-state.js';
import { CheckoutSession } from './checkout-session.entity.js';
import { isSessionOverdue } from './checkout-session.expiry.js';
import { CHECKOUT_SESSION_STREAM } from './checkout-session.recorder.js';
import { formatAmount } from '../pages/kit/money-format.js';
import { isEndState } from './checkout-session.transitions.js';
import { asksForShipping, offerShown, selectedOption } from './checkout-shipping.service.js';

/** Where the checkout page's script asks for the session's state (checkout.pages.ts serves it). */
export const CHECKOUT_PAGE_STATE_PATH = '/checkout/page/state';

/**
 * What the buyer's page shows of a session: its state and amount, whether the buyer can still pay or cancel (not past its
 * hour), and whether it has ended.
 */
export function checkoutPageLiveState(
  session: Pick<CheckoutSession, 'state' | 'expiresAt' | 'amount' | 'currency' | 'shippingDetails' | 'request' | 'offeredShipping'>,
  now: Date,
): LiveState {
  const awaitsUser = !isSessionOverdue(session, now) && (session.state === 'SessionCreated' || session.state === 'PaymentInitiated');
  return {
    state: session.state,
    awaitsUser,
    settled: isEndState(session.state),
    // The merchant may change the amount while the buyer is on the page (PATCH): the page shows the new one.
    shownAmount: formatAmount(awaitsUser ? payableNow(session).amount : checkoutTotal(session), session.currency),
  };
}

/**
 * What the buyer pays if they pay now, as the page's headline shows it: the order, plus the shipping chosen, else
 * plus the option the page selects (`chosenId`, else the merchant's default, else the first offered). While shipping
 * is still to be chosen and none is offered yet (the address comes first), the order alone, `plusShipping`.
 */
export function payableNow(
  session: Pick<CheckoutSession, 'state' | 'amount' | 'shippingDetails' | 'request' | 'offeredShipping'>,
  chosenId?: string,
): { amount: number; plusShipping: boolean } {
  if (session.shippingDetails?.amount || session.state !== 'SessionCreated' || !asksForShipping(session.request)) {
    return { amount: checkoutTotal(session), plusShipping: false };
  }
  const option = selectedOption(offerShown(session), chosenId);
  if (option) return { amount: session.amount + (option.amount?.value ?? 0), plusShipping: false };
  // No option offered: the address comes first (or none ships to it, and the order cannot be paid).
  return { amount: session.amount, plusShipping: true };
}

/** What the buyer pays: the order, plus the shipping it chose once it chose one. */
export function checkoutTotal(session: Pick<CheckoutSession, 'amount' | 'shippingDetails'>): number {
  return session.amount + (session.shippingDetails?.amount?.value ?? 0);
}

/**
 * The live state of the session behind a page token, and the stream whose events change it: one statement. The
 * session's own stream is enough: a session follows its payment (settled elsewhere, cancelled, expired) with an
 * event of its own (`settleSessionsFromPayments`).
 */
export async function readCheckoutPageLiveState(services: Services, token: string): Promise<LiveReading | undefined> {
  const session = await forkEm(services.orm).findOne(
    CheckoutSession,
    { pageToken: token },
    { fields: ['id', 'msn', 'state', 'expiresAt', 'amount', 'currency', 'shippingDetails', 'request', 'offeredShipping'] },
  );
  if (!session) return undefined;
  return {
    stream: { msn: session.msn, streamType: CHECKOUT_SESSION_STREAM, streamId: session.id },
    live: checkoutPageLiveState(session, services.testClocks.of(session.msn).now()),
  };
}
