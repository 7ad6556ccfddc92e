import * as machine from '../platform/state-machine.js';

export type PspPaymentState = 'INITIATED' | 'ACCEPTED' | 'USER_CANCEL' | 'TIMEOUT' | 'RESERVED' | 'FAILED';

/**
 * The PSP payment (FACTS §6): the wallet user approves (ACCEPTED: the make-payment callback goes out), cancels
 * (USER_CANCEL) or does nothing for 10 minutes (TIMEOUT). The PSP's answer to the callback, or a status update of a
 * token payment, makes an accepted payment RESERVED or FAILED. Capture, refund and cancel after RESERVED change
 * only the amounts.
 */
export const pspPaymentStateMachine = machine.defineStateMachine<PspPaymentState>('psp-payment', 'INITIATED', {
  INITIATED: ['ACCEPTED', 'USER_CANCEL', 'TIMEOUT'],
  ACCEPTED: ['RESERVED', 'FAILED'],
  USER_CANCEL: [],
  TIMEOUT: [],
  RESERVED: [],
  FAILED: [],
});

export function canMovePspPayment(from: PspPaymentState, to: PspPaymentState): boolean {
  return machine.canTransition(pspPaymentStateMachine, from, to);
}

/** Every change of a PSP payment's state goes through the table: the approval, the callback's answer, status updates. */
export function movePspPayment(payment: { state: PspPaymentState }, to: PspPaymentState): void {
  machine.assertTransition(pspPaymentStateMachine, payment.state, to);
  payment.state = to;
}
