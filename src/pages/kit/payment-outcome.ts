/*
 * What a wallet page says about where a payment stands, in people's words. Pure (no server imports): the server
 * renders it and the pages' script (src/pages/client/wallet/) rewrites the page with it when the state changes live,
 * so both say the same. Covers the states of every page on the kit: ePayment, PSP and checkout sessions.
 */

/** How the page looks: still waiting for the user, gone through, or stopped without money moving. */
export type OutcomeTone = 'waiting' | 'success' | 'failure';

export interface PaymentOutcome {
  tone: OutcomeTone;
  /** The page's heading once decided; while waiting, the page keeps its own ("Approve payment"). */
  heading?: string;
  /** The status line, after "Status: ". */
  status: string;
  /** A sentence saying what it means for the person, where the heading alone does not. */
  sentence?: string;
}

const NOTHING_CHARGED = 'No money was taken.';

const OUTCOMES: Record<string, PaymentOutcome> = {
  // ePayment
  CREATED: { tone: 'waiting', status: 'Waiting for your approval' },
  AUTHORIZED: { tone: 'success', heading: 'Payment approved', status: 'Approved' },
  ABORTED: {
    tone: 'failure',
    heading: 'Payment rejected',
    status: 'Rejected',
    sentence: `The payment was rejected. ${NOTHING_CHARGED}`,
  },
  EXPIRED: {
    tone: 'failure',
    heading: 'Payment expired',
    status: 'Expired',
    sentence: `The payment was not approved in time and has expired. ${NOTHING_CHARGED} Go back to the shop to try again.`,
  },
  TERMINATED: {
    tone: 'failure',
    heading: 'Payment cancelled',
    status: 'Cancelled by the shop',
    sentence: `The shop cancelled this payment. ${NOTHING_CHARGED}`,
  },
  // PSP
  INITIATED: { tone: 'waiting', status: 'Waiting for your approval' },
  ACCEPTED: { tone: 'success', heading: 'Payment approved', status: 'Approved' },
  RESERVED: { tone: 'success', heading: 'Payment approved', status: 'Approved, the amount is reserved on your card' },
  FAILED: {
    tone: 'failure',
    heading: 'Payment failed',
    status: 'Failed',
    sentence: `The card payment did not go through. ${NOTHING_CHARGED}`,
  },
  USER_CANCEL: {
    tone: 'failure',
    heading: 'Payment cancelled',
    status: 'Cancelled',
    sentence: `You cancelled this payment. ${NOTHING_CHARGED}`,
  },
  TIMEOUT: {
    tone: 'failure',
    heading: 'Payment expired',
    status: 'Expired',
    sentence: `The payment was not approved in time and has expired. ${NOTHING_CHARGED} Go back to the shop to try again.`,
  },
  // Checkout sessions
  SessionCreated: { tone: 'waiting', status: 'Waiting for your details' },
  PaymentInitiated: { tone: 'waiting', status: 'Waiting for your approval' },
  PaymentSuccessful: { tone: 'success', heading: 'Order paid', status: 'Paid' },
  PaymentTerminated: {
    tone: 'failure',
    heading: 'Checkout cancelled',
    status: 'Cancelled',
    sentence: `The payment was cancelled. ${NOTHING_CHARGED}`,
  },
  SessionExpired: {
    tone: 'failure',
    heading: 'Checkout expired',
    status: 'Expired',
    sentence: `The checkout was not finished in time and has expired. ${NOTHING_CHARGED} Go back to the shop to try again.`,
  },
};

/** The words for a state; a state this table does not know is shown as it is, neutral. */
export function paymentOutcome(state: string): PaymentOutcome {
  return OUTCOMES[state] ?? { tone: 'waiting', status: state };
}
