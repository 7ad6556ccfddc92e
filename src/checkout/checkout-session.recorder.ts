import type { Em } from '../platform/db/orm.js';
import type { CallbackKind } from '../platform/delivery/callback-kinds.js';
import { recordCallback } from '../platform/delivery/record-callback.js';
import { recordEvent } from '../platform/events/record-event.js';
import type { CheckoutSession } from './checkout-session.entity.js';
import { assertSessionTransition, isEndState, type CheckoutSessionState } from './checkout-session.transitions.js';
import { toSessionInfo, type SessionPayment } from './checkout-session.view.js';

export const CHECKOUT_SESSION_STREAM = 'checkout-session';

/**
 * The merchant's callback (FACTS §8 "Payment completed"): the session information POSTed to `callbackUrl` with
 * `Authorization: <callbackAuthorizationToken>` in each end state; a failure is retried with backoff, at most 3
 * retries (4 attempts). The delay is on the service's clock, so the test clock drives it.
 */
export const checkoutCallbackKind: CallbackKind = {
  name: 'checkout.session-callback',
  timeoutMs: () => 10_000,
  retry: { maxAttempts: 4, firstDelayMs: 30_000, maxDelayMs: 10 * 60_000 },
};

/** The outbox name of a session's event in each state (no public webhook event exists for sessions). */
export function sessionEventName(state: CheckoutSessionState): string {
  return `checkout.session.${state}.v1`;
}

/** The outbox name of a merchant's change to a session that keeps its state (`PATCH /checkout/v3/session/{reference}`). */
export const SESSION_UPDATED_EVENT = 'checkout.session.updated.v1';

/** Records the session as it is now as an event (by default named after its state), in the caller's unit of work. */
export function recordSessionEvent(
  em: Em,
  session: CheckoutSession,
  payment: SessionPayment | undefined,
  now: Date,
  name = sessionEventName(session.state),
): void {
  recordEvent(em, {
    streamType: CHECKOUT_SESSION_STREAM,
    streamId: session.id,
    msn: session.msn,
    name,
    payload: { ...toSessionInfo(session, payment, now) },
    occurredAt: now,
  });
}

/**
 * The one way a session changes state: the transition checked, its event, and in an end state the merchant's
 * callback, all in the caller's transaction (under its row lock on the session).
 */
export function moveSession(
  em: Em,
  session: CheckoutSession,
  to: CheckoutSessionState,
  payment: SessionPayment | undefined,
  now: Date,
): void {
  assertSessionTransition(session.state, to);
  session.state = to;
  session.updatedAt = now;
  recordSessionEvent(em, session, payment, now);
  if (isEndState(to)) {
    recordCallback(
      em,
      checkoutCallbackKind,
      {
        streamType: CHECKOUT_SESSION_STREAM,
        streamId: session.id,
        msn: session.msn,
        url: session.request.merchantInfo.callbackUrl,
        authorization: session.request.merchantInfo.callbackAuthorizationToken,
        body: toSessionInfo(session, payment, now),
      },
      now,
    );
  }
}
