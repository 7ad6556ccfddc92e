export type PaymentState = 'CREATED' | 'AUTHORIZED' | 'ABORTED' | 'EXPIRED' | 'TERMINATED';

/**
 * The payment state machine (FACTS §1.3). Every state but CREATED is final: capture, refund and cancel
 * after AUTHORIZED change only the aggregate, never the state.
 */
export const paymentTransitions: Readonly<Record<PaymentState, readonly PaymentState[]>> = {
  CREATED: ['AUTHORIZED', 'ABORTED', 'EXPIRED', 'TERMINATED'],
  AUTHORIZED: [],
  ABORTED: [],
  EXPIRED: [],
  TERMINATED: [],
};

export const paymentStates = Object.keys(paymentTransitions) as PaymentState[];

export function canTransition(from: PaymentState, to: PaymentState): boolean {
  return paymentTransitions[from].includes(to);
}

/** A guard against programming errors: services choose the caller-facing error before they get here. */
export function assertTransition(from: PaymentState, to: PaymentState): void {
  if (!canTransition(from, to)) {
    throw new Error(`Illegal payment transition ${from} -> ${to}`);
  }
}
