import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import type { LiveReading, LiveState } from '../platform/events/wait-for-state.js';
import { isFinal } from '../platform/state-machine.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { awaitsUser, effectiveState } from '../payments/payment-expiry.js';
import { runPaymentVerb, type VerbDecision } from '../payments/payment-for-verb.js';
import type { UserConsent } from '../user-profiles/user-consent.entity.js';
import { PAYMENT_STREAM } from '../payments/payment-event.types.js';
import { Payment } from '../payments/payment.entity.js';
import { paymentStateMachine } from '../payments/payment.transitions.js';
import { abortPayment, authorizePayment } from '../payments/payment-user.transitions.js';
import { testUserApproves, type TestUserRefusal } from './test-user-approval.js';
import { ApprovalDeclined } from '../payments/test-failure-triggers.js';
import { approvingUser } from '../payments/approving-user.js';
import { consentedScopeOf } from '../user-profiles/user-consent.recorder.js';
import { normalizePhoneNumber } from '../user-profiles/phone-number.js';
import { issueUserToken, type IssuedUserToken } from '../user-profiles/user-token.js';
import { MAX_AMOUNT } from '../payments/payment.rules.js';
import type { ShippingDetails } from '../payments/express-shipping.js';
import { chosenShipping, expressOffer, type AddressChoice, type ExpressOffer } from './express-landing.service.js';

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
  /** Express, awaiting the user: the addresses, shipping and total offered; null otherwise. */
  express: ExpressOffer | null;
  /** Express, approved: the address and option the user chose. */
  shippingDetails: ShippingDetails | null;
}

/** What the person on an Express landing page has said so far: who they are, the address, the option. */
export interface ExpressInput {
  phoneNumber?: string;
  choice: AddressChoice;
  optionId?: string;
}

/** Why a landing verb refused: the test user's refusals, a token that names no payment, or a payment already decided. */
export type LandingRefusal =
  | TestUserRefusal
  | 'NO_SUCH_PAYMENT'
  | 'NOT_AWAITING_USER'
  | 'NO_TEST_WALLET'
  | 'SHIPPING_NOT_CHOSEN'
  | 'SHIPPING_UNAVAILABLE'
  | 'TOTAL_TOO_HIGH'
  // The approval was declined: a failure trigger of the test environment, or the user is under minimumUserAge.
  | 'DECLINED'
  | 'UNDER_MINIMUM_AGE';

export type LandingOutcome =
  | { ok: true; payment: LandingPayment; userToken?: IssuedUserToken }
  | { ok: false; refusal: LandingRefusal; message: string; payment?: LandingPayment };

/**
 * Who acts on the payment behind a landing token: a person playing the test user on the test environment's landing
 * page, or a wallet app's client acting for its own user (`wallet-client`, test and production alike).
 */
export type LandingActor = 'page' | 'wallet-client';

export async function findLandingPayment(services: Services, token: string, input?: ExpressInput): Promise<LandingPayment | undefined> {
  const em = forkEm(services.orm);
  const payment = await em.findOne(Payment, { approvalToken: token });
  return payment ? describe(services, em, payment, input) : undefined;
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
  by: LandingActor = 'page',
  express?: ExpressInput,
): Promise<LandingOutcome> {
  if (by === 'page' && services.config.env !== 'test') return noTestWallet();
  // Express: the shipping the merchant offers for the chosen address, asked before the approval's transaction (the
  // merchant's callback may take seconds); the option chosen must be one of them. A wallet app that names none gets
  // the default option at the user's first address.
  const expressShipping = await expressShippingOf(services, token, phoneInput, express);
  if (expressShipping && 'ok' in expressShipping) return expressShipping;
  const shipping = expressShipping?.details;
  try {
    return await approveInTransaction(services, token, phoneInput, consented, by, shipping);
  } catch (error) {
    // A failure trigger of the test environment, or a user under minimumUserAge: nothing was written; the user is
    // told why and may give up.
    if (!(error instanceof ApprovalDeclined)) throw error;
    const payment = await findLandingPayment(services, token, express);
    const refusal = error.code === 'USER_UNDER_MINIMUM_AGE' ? 'UNDER_MINIMUM_AGE' : 'DECLINED';
    return payment ? { ok: false, refusal, message: error.failure.words, payment } : { ok: false, refusal, message: error.failure.words };
  }
}

async function approveInTransaction(
  services: Services,
  token: string,
  phoneInput: string,
  consented: boolean,
  by: LandingActor,
  shipping: ShippingDetails | undefined,
): Promise<LandingOutcome> {
  return forkEm(services.orm).transactional(async (em) => {
    const decided = await runPaymentVerb(
      { em, clock: services.clock },
      {
        payment: { approvalToken: token },
        time: (msn) => services.testClocks.of(msn).now(),
        mayRecord: ['AUTHORIZED'],
        // The test user's approval (its row locked, the consent recorded in this transaction) needs the payment.
        readMore: async (taken) => {
          if (!taken || !awaitsUser(taken.payment, taken.now)) return undefined;
          const approved = await testUserApproves(
            em,
            {
              phoneNumber: phoneInput,
              channel: by,
              act: 'approve',
              customerPhoneNumber: taken.payment.customerPhoneNumber,
              profile: taken.payment.profileScope
                ? {
                    paymentId: taken.payment.id,
                    reference: taken.payment.reference,
                    msn: taken.payment.msn,
                    scope: taken.payment.profileScope,
                    consented,
                  }
                : undefined,
            },
            taken.now,
          );
          // Who approves, as the payment's rules need them (a birth date for minimumUserAge).
          return approved.ok ? { ...approved, approver: await approvingUser(em, taken.payment, approved.user) } : approved;
        },
        // An overdue payment is expired as the expiry job would; the refusal is an answer, so that commits.
        decide: (taken, approved): VerbDecision<LandingDecision> => {
          if (!taken) return { value: { refusal: 'NO_SUCH_PAYMENT', message: 'This payment link is not valid.' } };
          const { payment, now } = taken;
          if (!approved) return { value: { refusal: 'NOT_AWAITING_USER', message: 'This payment can no longer be approved.', payment } };
          if (!approved.ok) return { value: { refusal: approved.refusal, message: LANDING_REFUSALS[approved.refusal], payment } };
          const details = payment.shipping ? shipping : undefined;
          if (payment.shipping && !details) {
            return { value: { refusal: 'SHIPPING_NOT_CHOSEN', message: 'Choose an address and a shipping option.', payment } };
          }
          if (details && payment.amount + details.shippingCost > MAX_AMOUNT) {
            return { value: { refusal: 'TOTAL_TOO_HIGH', message: 'The total with shipping is more than a payment may be.', payment } };
          }
          return {
            value: { payment, consent: approved.consent },
            events: [authorizePayment(payment, approved.approver, now, services.config.env, details)],
          };
        },
      },
    );
    // The test user's count and the consent, changed by the approval, commit with the payment.
    await em.flush();
    if (!decided.payment) return { ok: false, refusal: decided.refusal!, message: decided.message! };
    const payment = await describe(services, em, decided.payment);
    if (decided.refusal) return { ok: false, refusal: decided.refusal, message: decided.message!, payment };
    // Tokens live in real time, whatever the unit's test clock says (it is checked against real time).
    const userToken = decided.consent ? issueUserToken(services.config, decided.consent, services.clock.now()) : undefined;
    return { ok: true, payment, userToken };
  });
}

/**
 * The user says no. A wallet app's client names its user (`user`, a phone number): a payment made for another
 * customer is not theirs to reject.
 */
export async function rejectOnLanding(
  services: Services,
  token: string,
  by: LandingActor = 'page',
  user?: string,
): Promise<LandingOutcome> {
  if (by === 'page' && services.config.env !== 'test') return noTestWallet();
  const phoneNumber = user === undefined ? undefined : normalizePhoneNumber(user);
  if (user !== undefined && !phoneNumber) return { ok: false, refusal: 'NOT_A_PHONE_NUMBER', message: LANDING_REFUSALS.NOT_A_PHONE_NUMBER };
  return forkEm(services.orm).transactional(async (em) => {
    const decided = await runPaymentVerb(
      { em, clock: services.clock },
      {
        payment: { approvalToken: token },
        time: (msn) => services.testClocks.of(msn).now(),
        mayRecord: ['ABORTED'],
        decide: (taken): VerbDecision<LandingDecision> => {
          if (!taken) return { value: { refusal: 'NO_SUCH_PAYMENT', message: 'This payment link is not valid.' } };
          const { payment, now } = taken;
          if (!awaitsUser(payment, now))
            return { value: { refusal: 'NOT_AWAITING_USER', message: 'This payment can no longer be rejected.', payment } };
          const customer = payment.customerPhoneNumber ? normalizePhoneNumber(payment.customerPhoneNumber) : undefined;
          if (phoneNumber && customer && customer !== phoneNumber)
            return { value: { refusal: 'OTHER_CUSTOMER', message: LANDING_REFUSALS.OTHER_CUSTOMER, payment } };
          return { value: { payment }, events: [abortPayment(payment, now)] };
        },
      },
    );
    if (!decided.payment) return { ok: false, refusal: decided.refusal!, message: decided.message! };
    const payment = await describe(services, em, decided.payment);
    return decided.refusal ? { ok: false, refusal: decided.refusal, message: decided.message!, payment } : { ok: true, payment };
  });
}

function noTestWallet(): LandingOutcome {
  return { ok: false, refusal: 'NO_TEST_WALLET', message: 'There is no simulated wallet user in production.' };
}

/**
 * An Express payment's chosen shipping, or the page's answer when there is none to approve with; undefined for a
 * payment that is not Express (or a token that names none: the approval says so).
 */
async function expressShippingOf(
  services: Services,
  token: string,
  phoneInput: string,
  express: ExpressInput | undefined,
): Promise<{ details: ShippingDetails } | LandingOutcome | undefined> {
  const em = forkEm(services.orm);
  const payment = await em.findOne(Payment, { approvalToken: token });
  if (!payment?.shipping || !awaitsUser(payment, services.testClocks.of(payment.msn).now())) return undefined;
  const input = { choice: { pick: '0', typed: {} }, ...express, phoneNumber: phoneInput };
  const offer = await expressOffer(services, payment, phoneInput, input.choice, input.optionId);
  const details = chosenShipping(offer, input.optionId);
  if (typeof details === 'string') {
    return { ok: false, refusal: 'SHIPPING_UNAVAILABLE', message: details, payment: await describe(services, em, payment, input) };
  }
  return { details };
}

/** What a landing verb decided: the payment (none when the token names none), and the refusal's message if it refused. */
interface LandingDecision {
  payment?: Payment;
  refusal?: LandingRefusal;
  message?: string;
  consent?: UserConsent;
}

async function describe(
  services: Services,
  em: ReturnType<typeof forkEm>,
  payment: Payment,
  input?: ExpressInput,
): Promise<LandingPayment> {
  const live = landingLiveState(payment, services.testClocks.of(payment.msn).now());
  const express =
    payment.shipping && live.awaitsUser
      ? await expressOffer(
          services,
          payment,
          input?.phoneNumber ?? payment.customerPhoneNumber ?? undefined,
          input?.choice ?? { pick: '0', typed: {} },
          input?.optionId,
        )
      : null;
  const unit = await em.findOne(SalesUnit, { msn: payment.msn });
  const merchant = unit ? await em.findOne(Merchant, { id: unit.merchantId }) : null;
  return {
    merchantName: unit?.name ?? merchant?.name ?? payment.msn,
    amount: payment.amount,
    currency: payment.currency,
    description: payment.paymentDescription ?? null,
    ...live,
    customerPhoneNumber: payment.customerPhoneNumber ?? null,
    returnUrl: payment.returnUrl ?? null,
    profileScope: payment.profileScope ?? null,
    sharedScope: payment.profileScope ? await consentedScopeOf(em, payment.id) : null,
    express,
    shippingDetails: payment.shippingDetails ?? null,
  };
}
