import * as machine from '../platform/state-machine.js';

export type PaymentState = 'CREATED' | 'AUTHORIZED' | 'ABORTED' | 'EXPIRED' | 'TERMINATED';

/**
 * The payment state machine (FACTS §1.3). Every state but CREATED is final: capture, refund and cancel
 * after AUTHORIZED change only the aggregate, never the state.
 */
export const paymentStateMachine = machine.defineStateMachine<PaymentState>('payment', 'CREATED', {
  CREATED: ['AUTHORIZED', 'ABORTED', 'EXPIRED', 'TERMINATED'],
  AUTHORIZED: [],
  ABORTED: [],
  EXPIRED: [],
  TERMINATED: [],
});

export const paymentTransitions = paymentStateMachine.transitions;

export const paymentStates = machine.statesOf(paymentStateMachine);

export function canTransition(from: PaymentState, to: PaymentState): boolean {
  return machine.canTransition(paymentStateMachine, from, to);
}

export function assertTransition(from: PaymentState, to: PaymentState): void {
  machine.assertTransition(paymentStateMachine, from, to);
}
