import * as machine from '../platform/state-machine.js';

export type CheckoutSessionState = 'SessionCreated' | 'PaymentInitiated' | 'PaymentSuccessful' | 'PaymentTerminated' | 'SessionExpired';

/**
 * The checkout session state machine (FACTS §8: the `ExternalSessionState` enum and the inferred transitions).
 * The three end states send the merchant's callback.
 */
export const checkoutSessionStateMachine = machine.defineStateMachine<CheckoutSessionState>('checkout session', 'SessionCreated', {
  SessionCreated: ['PaymentInitiated', 'PaymentTerminated', 'SessionExpired'],
  PaymentInitiated: ['PaymentSuccessful', 'PaymentTerminated', 'SessionExpired'],
  PaymentSuccessful: [],
  PaymentTerminated: [],
  SessionExpired: [],
});

export function isEndState(state: CheckoutSessionState): boolean {
  return machine.isFinal(checkoutSessionStateMachine, state);
}

export function canMoveSession(from: CheckoutSessionState, to: CheckoutSessionState): boolean {
  return machine.canTransition(checkoutSessionStateMachine, from, to);
}

/**
 * The states in which the merchant may still change a session (`PATCH /checkout/v3/session/{reference}`): before
 * the buyer pays, since the payment is created with the session's amount and options.
 */
export const SESSION_UPDATABLE_STATES: readonly CheckoutSessionState[] = ['SessionCreated'];

export function assertSessionTransition(from: CheckoutSessionState, to: CheckoutSessionState): void {
  machine.assertTransition(checkoutSessionStateMachine, from, to);
}
