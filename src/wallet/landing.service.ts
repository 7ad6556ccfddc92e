import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import type { LiveReading, LiveState } from '../platform/events/wait-for-state.js';
import { isFinal } from '../platform/state-machine.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { awaitsUser, effectiveState } from '../payments/payment-expiry.js';
import { lockPaymentForVerb } from '../payments/payment-for-verb.js';
import { PAYMENT_STREAM } from '../payments/payment-event.types.js';
import { Payment } from '../payments/payment.entity.js';
import { paymentStateMachine } from '../payments/payment.transitions.js';
import { abortPayment, authorizePayment } from '../payments/payment-user.transitions.js';
import { testUserApproves, type TestUserRefusal } from './test-user-approval.js';
import { consentedScopeOf } from '../user-profiles/user-consent.recorder.js';
import { issueUserToken, type IssuedUserToken } from '../user-profiles/user-token.js';

/** What the landing page shows of a payment: only what the wallet app would show its user. */
export interface LandingPayment extends LiveState {
  merchantName: string;
  amount: number;
  currency: string;
  description: string | null;
  customerPhoneNumber: string | null;
  returnUrl: string | null;
  /** The profile scope the merchant asks the user to share (space-separated), if any. */
  profileScope: string | null;
  /** What the user consented to share when approving this payment, if they did. */
  sharedScope: string | null;
}

export type LandingOutcome =
  { ok: true; payment: LandingPayment; userToken?: IssuedUserToken } | { ok: false; message: string; payment?: LandingPayment };

export async function findLandingPayment(services: Services, token: string): Promise<LandingPayment | undefined> {
  const em = forkEm(services.orm);
  const payment = await em.findOne(Payment, { approvalToken: token });
  return payment ? describe(services, em, payment) : undefined;
}

/** The live state of the payment behind a landing token, and the stream whose events change it: one statement. */
export async function readLandingLiveState(services: Services, token: string): Promise<LiveReading | undefined> {
  const payment = await forkEm(services.orm).findOne(Payment, { approvalToken: token }, { fields: ['id', 'msn', 'state', 'expiresAt'] });
  if (!payment) return undefined;
  return {
    stream: { msn: payment.msn, streamType: PAYMENT_STREAM, streamId: payment.id },
    live: landingLiveState(payment, services.testClocks.of(payment.msn).now()),
  };
}

/** The state as the wallet shows it (an overdue payment is EXPIRED), whether its user may act, whether it is final. */
function landingLiveState(payment: Pick<Payment, 'state' | 'expiresAt'>, now: Date): LiveState {
  const state = effectiveState(payment, now);
  return { state, awaitsUser: awaitsUser(payment, now), settled: isFinal(paymentStateMachine, state) };
}

/** What the landing page tells the person when the test user may not approve. */
const LANDING_REFUSALS: Record<TestUserRefusal, string> = {
  NOT_A_PHONE_NUMBER: 'No test user has that phone number.',
  UNKNOWN_USER: 'No test user has that phone number.',
  OTHER_CUSTOMER: 'This payment is for another user.',
  NO_PAGE_APPROVAL_YET: 'This test user may not approve here.',
  CONSENT_REQUIRED: 'To approve, agree to share the information asked for.',
};

/**
 * The person on the landing page approves as the test user with this phone number. A payment that asks for profile
 * scopes is approved only with the user's consent to share them (the wallet's consent card must be accepted
 * first); the consent is stored in the approval's transaction, and the user's access token for the merchant's
 * `returnUrl` is issued from it.
 */
export async function approveOnLanding(
  services: Services,
  token: string,
  phoneInput: string,
  // Pages that show no consent card (none asks for a profile) leave it out: a profile payment is then refused.
  consented = false,
): Promise<LandingOutcome> {
  if (services.config.env !== 'test') return { ok: false, message: 'There is no simulated wallet user in production.' };
  return forkEm(services.orm).transactional(async (em) => {
    const found = await lockPaymentForVerb(em, { approvalToken: token }, (msn) => services.testClocks.of(msn).now());
    if (!found) return { ok: false, message: 'This payment link is not valid.' };
    const { payment, expiredNow, now } = found;
    // An overdue payment is expired as the expiry job would; the refusal below is returned, so it commits.
    if (expiredNow) await em.flush();
    if (!awaitsUser(payment, now))
      return { ok: false, message: 'This payment can no longer be approved.', payment: await describe(services, em, payment) };
    const approved = await testUserApproves(
      em,
      {
        phoneNumber: phoneInput,
        channel: 'page',
        act: 'approve',
        customerPhoneNumber: payment.customerPhoneNumber,
        profile: payment.profileScope
          ? { paymentId: payment.id, reference: payment.reference, msn: payment.msn, scope: payment.profileScope, consented }
          : undefined,
      },
      now,
    );
    if (!approved.ok) {
      return { ok: false, message: LANDING_REFUSALS[approved.refusal], payment: await describe(services, em, payment) };
    }
    authorizePayment(em, payment, approved.user, now);
    const { consent } = approved;
    await em.flush();
    // Tokens live in real time, whatever the unit's test clock says (it is checked against real time).
    const userToken = consent ? issueUserToken(services.config, consent, services.clock.now()) : undefined;
    return { ok: true, payment: await describe(services, em, payment), userToken };
  });
}

export async function rejectOnLanding(services: Services, token: string): Promise<LandingOutcome> {
  if (services.config.env !== 'test') return { ok: false, message: 'There is no simulated wallet user in production.' };
  return forkEm(services.orm).transactional(async (em) => {
    const found = await lockPaymentForVerb(em, { approvalToken: token }, (msn) => services.testClocks.of(msn).now());
    if (!found) return { ok: false, message: 'This payment link is not valid.' };
    const { payment, expiredNow, now } = found;
    if (expiredNow) await em.flush();
    if (!awaitsUser(payment, now))
      return { ok: false, message: 'This payment can no longer be rejected.', payment: await describe(services, em, payment) };
    abortPayment(em, payment, now);
    await em.flush();
    return { ok: true, payment: await describe(services, em, payment) };
  });
}

async function describe(services: Services, em: ReturnType<typeof forkEm>, payment: Payment): Promise<LandingPayment> {
  const unit = await em.findOne(SalesUnit, { msn: payment.msn });
  const merchant = unit ? await em.findOne(Merchant, { id: unit.merchantId }) : null;
  return {
    merchantName: unit?.name ?? merchant?.name ?? payment.msn,
    amount: payment.amount,
    currency: payment.currency,
    description: payment.paymentDescription ?? null,
    ...landingLiveState(payment, services.testClocks.of(payment.msn).now()),
    customerPhoneNumber: payment.customerPhoneNumber ?? null,
    returnUrl: payment.returnUrl ?? null,
    profileScope: payment.profileScope ?? null,
    sharedScope: payment.profileScope ? await consentedScopeOf(em, payment.id) : null,
  };
}
