import type { PaygraphEnv } from '../config.js';
import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import type { Money } from './payment.commands.js';
import './payment.errors.js';

/**
 * The test environment's failure triggers (FACTS §14.5): amounts, in minor units, with which the user's approval
 * fails as a real card fails, and refund amounts the platform refuses. They exist in the test environment only; in
 * production these are amounts like any other.
 *
 * An approval is decided here, on the way to `authorizePayment`, which every ePayment approval calls (the landing
 * page, force approve, a checkout's payment): not in the test user's approval, which QR check-ins and PSP payments
 * share and which these amounts do not concern. The amount checked is the one the user approves.
 */
export type ApprovalFailureReason =
  | 'INSUFFICIENT_FUNDS'
  | 'REFUSED_BY_ISSUER'
  | 'SUSPECTED_FRAUD'
  | 'WITHDRAWAL_LIMIT_EXCEEDED'
  | 'EXPIRED_CARD'
  | 'INVALID_CARD'
  | 'THREE_D_SECURE_DENIED'
  | 'UNKNOWN_RESULT'
  | 'STRONG_CUSTOMER_AUTHENTICATION_REQUIRED';

export interface ApprovalFailure {
  amount: number;
  reason: ApprovalFailureReason;
  /** What the wallet tells its user, in words. */
  words: string;
}

/** Amount → failure, as the platform's test environment has them (FACTS §14.5). */
export const APPROVAL_FAILURES: readonly ApprovalFailure[] = [
  { amount: 151, reason: 'INSUFFICIENT_FUNDS', words: 'The card was declined: there is not enough money on the account.' },
  { amount: 182, reason: 'REFUSED_BY_ISSUER', words: 'The card was declined by the bank that issued it.' },
  { amount: 183, reason: 'SUSPECTED_FRAUD', words: 'The card was declined: the bank suspects fraud.' },
  { amount: 184, reason: 'WITHDRAWAL_LIMIT_EXCEEDED', words: 'The card was declined: its spending limit is reached.' },
  { amount: 186, reason: 'EXPIRED_CARD', words: 'The card was declined: it has expired.' },
  { amount: 187, reason: 'INVALID_CARD', words: 'The card was declined: it is not valid.' },
  { amount: 197, reason: 'THREE_D_SECURE_DENIED', words: 'The card was declined: the 3-D Secure check failed.' },
  {
    amount: 201,
    reason: 'UNKNOWN_RESULT',
    words: 'The bank has not answered, so the payment could not be approved. Try again later, or give up.',
  },
  {
    amount: 202,
    reason: 'STRONG_CUSTOMER_AUTHENTICATION_REQUIRED',
    words: 'The card was declined: the bank requires strong customer authentication.',
  },
];

/** Refund amount → its refusal (FACTS §14.5): 123 cannot be refunded (5100), 124 is past the refund period (6220). */
export const REFUND_FAILURES = {
  123: { code: 'REFUND_NOT_POSSIBLE', detail: 'The refund is not possible: the user has no account to receive it' },
  124: { code: 'REFUND_PERIOD_EXPIRED', detail: 'Refunds are possible for 365 days after authorization' },
} as const;

/**
 * An approval declined (a failure trigger of the test environment, a user under `minimumUserAge`): no state changes,
 * no event; the user is told `failure.words` and may try again or give up.
 */
export class ApprovalDeclined extends AppError {
  readonly failure: Pick<ApprovalFailure, 'words'> & { reason: string };
  constructor(
    failure: Pick<ApprovalFailure, 'words'> & { reason: string },
    code: 'APPROVAL_DECLINED' | 'USER_UNDER_MINIMUM_AGE' = 'APPROVAL_DECLINED',
    details: ErrorDetail[] = [{ name: 'failure', reason: failure.reason }],
  ) {
    super(code, failure.words, details);
    this.failure = failure;
  }
}

/** The failure an approval of `amount` meets in the test environment, if any. */
export function approvalFailure(env: PaygraphEnv, amount: number): ApprovalFailure | undefined {
  return env === 'test' ? APPROVAL_FAILURES.find((f) => f.amount === amount) : undefined;
}

/** Refuses a refund whose amount is a trigger, in the test environment; run after the refund's own rules. */
export function refuseTriggeredRefund(env: PaygraphEnv, amount: { money: Money; field: string }): void {
  if (env !== 'test' || !Object.hasOwn(REFUND_FAILURES, amount.money.value)) return;
  const { code, detail } = REFUND_FAILURES[amount.money.value as keyof typeof REFUND_FAILURES];
  throw new AppError(code, detail, [
    { name: `${amount.field}.value`, reason: `${amount.money.value} is a refund trigger of the test environment` },
  ]);
}
