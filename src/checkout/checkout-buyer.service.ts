import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { CheckoutClientPrincipal } from '../platform/auth/principal.js';
import { contextFor } from '../platform/auth/request-context.js';
import { salesUnitScope } from '../platform/auth/tenancy-scope.js';
import type { Services } from '../platform/context.js';
import { forkEm, type Em } from '../platform/db/orm.js';
import { ApprovalDeclined } from '../payments/test-failure-triggers.js';
import { AppError } from '../platform/errors/app-error.js';
import type { LiveState } from '../platform/events/wait-for-state.js';
import { MAX_AMOUNT } from '../payments/payment.rules.js';
import { readPayment } from '../payments/payment.read-model.js';
import { createPayment } from '../payments/payment.service.js';
import { awaitsUser } from '../payments/payment-expiry.js';
import { runPaymentVerb, type VerbDecision } from '../payments/payment-for-verb.js';
import type { Payment } from '../payments/payment.entity.js';
import { abortPayment, authorizePayment } from '../payments/payment-user.transitions.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { testUserApproves } from '../wallet/test-user-approval.js';
import { UserProfile } from '../user-profiles/user-profile.entity.js';
import { checkoutPageLiveState } from './checkout-page.live-state.js';
import { CheckoutSession } from './checkout-session.entity.js';
import { expireSessionIfOverdue, isSessionOverdue } from './checkout-session.expiry.js';
import { moveSession } from './checkout-session.recorder.js';
import type { BillingDetails, LogisticsOption, OfferedShipping, SessionAddress, ShippingDetails } from './checkout-session.types.js';
import type { SessionPayment } from './checkout-session.view.js';
import { checkBuyerForm, pricesChangedSinceShown, type BuyerForm, type FieldErrors } from './checkout-buyer.rules.js';
import { payableNow } from './checkout-page.live-state.js';
import { formatAmount } from '../pages/kit/money-format.js';
import { asksForShipping, fixedOffer, offerShown, shippingOffer } from './checkout-shipping.service.js';

/** What the buyer's page shows of a session: only what the buyer may see (no merchant secrets). */
export interface CheckoutPage {
  token: string;
  merchantName: string;
  session: CheckoutSession;
  /** The state shown, whether the buyer can still pay or cancel (`awaitsUser`), whether the session has ended. */
  live: LiveState;
  /** The session asks for shipping; `offer` is what the buyer may choose from (null: enter an address first). */
  asksForShipping: boolean;
  offer: OfferedShipping | null;
}

export type BuyerOutcome =
  | { ok: true; page: CheckoutPage; message?: string }
  | { ok: false; page?: CheckoutPage; message: string; fieldErrors?: FieldErrors; form?: BuyerForm };

export async function findCheckoutPage(services: Services, token: string): Promise<CheckoutPage | undefined> {
  const em = forkEm(services.orm);
  const session = await em.findOne(CheckoutSession, { pageToken: token });
  return session ? describe(services, em, session) : undefined;
}

async function describe(services: Services, em: Em, session: CheckoutSession): Promise<CheckoutPage> {
  const now = services.testClocks.of(session.msn).now();
  const unit = await em.findOne(SalesUnit, { msn: session.msn }, { fields: ['name'] });
  return {
    token: session.pageToken,
    merchantName: unit?.name ?? session.msn,
    session,
    live: checkoutPageLiveState(session, now),
    asksForShipping: asksForShipping(session.request),
    offer: offerShown(session),
  };
}

/**
 * The buyer typed an address: the shipping options for it (the merchant's dynamic callback, outside any
 * transaction; else the fixed ones) are stored on the session with the address, for the payment to choose from.
 */
export async function offerShipping(services: Services, token: string, form: BuyerForm): Promise<BuyerOutcome> {
  const em = forkEm(services.orm);
  const session = await em.findOne(CheckoutSession, { pageToken: token });
  if (!session) return { ok: false, message: 'This checkout link is not valid.' };
  const page = await describe(services, em, session);
  if (!page.live.awaitsUser || session.state !== 'SessionCreated')
    return { ok: false, page, message: 'This checkout can no longer be changed.' };
  const checked = checkBuyerForm(session.request, form, { address: true, contact: false, shipping: false, consent: false });
  if (!checked.ok) return { ok: false, page, form, message: 'Check the address.', fieldErrors: checked.fieldErrors };
  const address = checked.address!;
  const offer = asksForShipping(session.request) ? await shippingOffer(session.request, address, services.config) : null;
  await em.transactional(async (tx) => {
    const locked = await tx.findOneOrFail(CheckoutSession, { id: session.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (locked.state !== 'SessionCreated') return;
    locked.buyerAddress = address;
    locked.offeredShipping = offer;
    locked.updatedAt = services.testClocks.of(locked.msn).now();
  });
  const fresh = await forkEm(services.orm).findOneOrFail(CheckoutSession, { id: session.id });
  const after = await describe(services, em, fresh);
  if (offer && offer.options.length === 0) {
    return { ok: false, page: after, form, message: 'No shipping options are available for this address, so the order cannot be paid.' };
  }
  return { ok: true, page: after };
}

/**
 * The buyer pays: with valid contact, address, shipping and consent, the session's ePayment payment is created
 * through the payments service (reference = the session's, amount = the order plus shipping) and the session moves
 * to PaymentInitiated, in one transaction; then the test user named by phone number approves it, and the payment
 * and the session (PaymentSuccessful, with the merchant's callback) change in a second one. A refused approval
 * leaves the session PaymentInitiated, so the buyer may try again.
 */
export async function payCheckout(services: Services, token: string, form: BuyerForm): Promise<BuyerOutcome> {
  if (services.config.env !== 'test') return { ok: false, message: 'There is no simulated wallet user in production.' };
  let initiated: BuyerOutcome | undefined;
  try {
    initiated = await initiatePayment(services, token, form);
  } catch (error) {
    // The payment service refused the payment (its rules hold for a checkout as for REST; a deactivated unit takes
    // none): step one rolled back whole, so the session is as it was and nothing of a payment was written.
    if (!(error instanceof AppError)) throw error;
    const page = await findCheckoutPage(services, token);
    return { ok: false, ...(page ? { page } : {}), form, message: `This order cannot be paid: ${error.message}.` };
  }
  if (initiated) return initiated;
  try {
    return await approveInitiated(services, token, form);
  } catch (error) {
    // A failure trigger of the test environment (the total the buyer approves): nothing was written, the session
    // stays PaymentInitiated and its payment CREATED, so the buyer may try again.
    if (!(error instanceof ApprovalDeclined)) throw error;
    const page = await findCheckoutPage(services, token);
    return { ok: false, ...(page ? { page } : {}), form, message: error.failure.words };
  }
}

/** Step two of paying: the test user approves the session's payment. */
async function approveInitiated(services: Services, token: string, form: BuyerForm): Promise<BuyerOutcome> {
  return forkEm(services.orm).transactional(async (em) => {
    const session = await em.findOne(CheckoutSession, { pageToken: token }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!session) return { ok: false, message: 'This checkout link is not valid.' };
    const now = services.testClocks.of(session.msn).now();
    if (session.state !== 'PaymentInitiated') return refused(services, em, session, 'This checkout can no longer be paid.');
    if (pricesChangedSinceShown(session, form)) return { ...(await priceChanged(services, em, session, form.shippingOptionId)), form };
    const step = await runPaymentVerb(
      { em, clock: services.clock },
      {
        payment: { msn: session.msn, reference: session.reference },
        time: now,
        mayRecord: ['AUTHORIZED'],
        // The test user (its row locked) and the profile the merchant asks for, when the payment may still be approved.
        readMore: async (taken) => {
          if (!taken) throw new Error(`Session ${session.id} is PaymentInitiated without its payment`);
          if (isSessionOverdue(session, now) || taken.expiredNow || !awaitsUser(taken.payment, now)) return undefined;
          const approved = await testUserApproves(
            em,
            {
              phoneNumber: form.walletPhone ?? '',
              channel: 'page',
              act: 'approve',
              customerPhoneNumber: taken.payment.customerPhoneNumber,
            },
            now,
          );
          const wantsProfile = approved.ok && session.request.configuration?.requireUserInfo;
          const profile = wantsProfile ? await em.findOne(UserProfile, { sub: approved.user.sub }, { fields: ['email'] }) : null;
          return { approved, email: profile?.email ?? null };
        },
        // The session's changes are the caller's unit of work, flushed with the payment's write below.
        decide: (taken, tested): VerbDecision<{ message?: string; fieldErrors?: FieldErrors }> => {
          const { payment, expiredNow } = taken!;
          if (expireSessionIfOverdue(em, session, payment, now) || expiredNow) return { value: { message: 'This checkout has expired.' } };
          if (!tested) return { value: { message: 'This payment can no longer be approved.' } };
          const { approved, email } = tested;
          if (!approved.ok) {
            const message = approved.refusal === 'NOT_A_PHONE_NUMBER' ? 'No test user has that phone number' : approved.message;
            return { value: { message: `${message}.`, fieldErrors: { walletPhone: [message] } } };
          }
          const authorized = authorizePayment(payment, approved.user, now, services.config.env);
          if (session.request.configuration?.requireUserInfo) session.userInfo = { sub: approved.user.sub, email };
          moveSession(em, session, 'PaymentSuccessful', payment, now);
          return { value: {}, events: [authorized] };
        },
      },
    );
    await em.flush();
    if (step.message) return refused(services, em, session, step.message, step.fieldErrors);
    return { ok: true, page: await describe(services, em, session), message: 'Payment approved.' };
  });
}

/** Step one of paying; undefined when the session is (now, or already) PaymentInitiated. */
async function initiatePayment(services: Services, token: string, form: BuyerForm): Promise<BuyerOutcome | undefined> {
  const peek = await forkEm(services.orm).findOne(CheckoutSession, { pageToken: token });
  if (!peek) return { ok: false, message: 'This checkout link is not valid.' };
  if (peek.state !== 'SessionCreated') return undefined;
  const request = peek.request;
  const elements = request.configuration?.elements ?? 'Full';
  const shipping = asksForShipping(request);
  const checked = checkBuyerForm(request, form, {
    address: elements === 'Full',
    contact: elements !== 'PaymentOnly',
    shipping: false,
    consent: true,
  });
  // The options for the address the buyer pays with: asked again (outside any transaction) when it changed.
  let offer: OfferedShipping | null = null;
  if (shipping && checked.address) {
    offer =
      peek.offeredShipping && sameAddress(peek.buyerAddress, checked.address)
        ? peek.offeredShipping
        : request.logistics?.dynamicOptionsCallback
          ? await shippingOffer(request, checked.address, services.config)
          : fixedOffer(request);
  }
  return forkEm(services.orm).transactional(async (em) => {
    const session = await em.findOne(CheckoutSession, { pageToken: token }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!session) return { ok: false, message: 'This checkout link is not valid.' };
    const now = services.testClocks.of(session.msn).now();
    if (expireSessionIfOverdue(em, session, undefined, now)) {
      await em.flush();
      return refused(services, em, session, 'This checkout has expired.');
    }
    if (session.state === 'PaymentInitiated') return undefined;
    if (session.state !== 'SessionCreated') return refused(services, em, session, 'This checkout can no longer be paid.');
    // Checked under the session's lock: a merchant's PATCH either committed before (refused here) or waits for this.
    if (pricesChangedSinceShown(session, form)) return { ...(await priceChanged(services, em, session, form.shippingOptionId)), form };
    const fieldErrors: FieldErrors = { ...(checked.ok ? {} : checked.fieldErrors) };
    let option: LogisticsOption | undefined;
    if (shipping && checked.address) {
      session.buyerAddress = checked.address;
      session.offeredShipping = offer;
      if (!offer || offer.options.length === 0) {
        await em.flush();
        return { ...(await refused(services, em, session, 'No shipping options are available, so the order cannot be paid.')), form };
      }
      option = offer.options.find((o) => o.id === form.shippingOptionId);
      if (!option) fieldErrors.shippingOptionId = ['Choose a shipping option'];
    }
    if (Object.keys(fieldErrors).length > 0) {
      await em.flush();
      return { ...(await refused(services, em, session, 'Check the fields marked below.', fieldErrors)), form };
    }
    const shippingAmount = option?.amount?.value ?? 0;
    const total = session.amount + shippingAmount;
    if (total > MAX_AMOUNT) return refused(services, em, session, 'The order with shipping is more than can be paid at once.');
    // The merchant used the reference for an ePayment payment after opening the session: it can never be paid.
    if (await readPayment(em, session.msn, session.reference)) {
      moveSession(em, session, 'PaymentTerminated', undefined, now);
      await em.flush();
      return refused(services, em, session, 'This order can no longer be paid.');
    }
    const merchantId = await services.salesUnits.ownerOf(em, session.msn);
    const principal: CheckoutClientPrincipal = { kind: 'checkoutClient', clientId: session.clientId, merchantId: merchantId ?? '' };
    const ctx = contextFor(services, em, principal, salesUnitScope(session.msn, true), randomUUID());
    const view = await createPayment(
      ctx,
      {
        reference: session.reference,
        amount: { currency: session.currency, value: total },
        paymentMethod: 'WALLET',
        userFlow: 'WEB_REDIRECT',
        customerInteraction: session.request.configuration?.customerInteraction ?? 'CUSTOMER_NOT_PRESENT',
        returnUrl: session.request.merchantInfo.returnUrl,
        paymentDescription: session.paymentDescription,
      },
      `checkout-${session.id}`.slice(0, 50),
    );
    const contact = checked.contact;
    const address = checked.address;
    const billing: BillingDetails | null = contact
      ? {
          ...contact,
          streetAddress: address?.streetAddress ?? null,
          postalCode: address?.postalCode ?? null,
          city: address?.city ?? null,
          country: address?.country ?? null,
        }
      : null;
    session.billingDetails = billing;
    session.shippingDetails =
      billing && option
        ? ({
            ...billing,
            shippingMethodId: option.id,
            amount: { value: shippingAmount, currency: session.currency },
          } satisfies ShippingDetails)
        : billing;
    session.paymentId = view.id;
    session.paymentMethod = 'Wallet';
    if (session.request.configuration?.customConsent) session.customConsentProvided = checked.consent;
    const payment: SessionPayment = {
      id: view.id,
      state: view.state,
      expiresAt: new Date(view.expiresAt),
      currency: view.currency,
      amount: view.amount,
      authorizedAmount: view.authorizedAmount,
      capturedAmount: view.capturedAmount,
      cancelledAmount: view.cancelledAmount,
      refundedAmount: view.refundedAmount,
    };
    moveSession(em, session, 'PaymentInitiated', payment, now);
    await em.flush();
    return undefined;
  });
}

/** The buyer cancels: the session ends PaymentTerminated (its payment, if any and still open, ABORTED). */
export async function cancelCheckout(services: Services, token: string): Promise<BuyerOutcome> {
  return forkEm(services.orm).transactional(async (em) => {
    const session = await em.findOne(CheckoutSession, { pageToken: token }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!session) return { ok: false, message: 'This checkout link is not valid.' };
    const now = services.testClocks.of(session.msn).now();
    // The session's steps, and the payment's when it has one: aborted if it still waits for the buyer.
    const cancel = (payment: Payment | undefined): VerbDecision<string | undefined> => {
      if (expireSessionIfOverdue(em, session, payment, now)) return { value: 'This checkout has expired.' };
      if (session.state !== 'SessionCreated' && session.state !== 'PaymentInitiated')
        return { value: 'This checkout can no longer be cancelled.' };
      const aborted = payment && awaitsUser(payment, now) ? [abortPayment(payment, now)] : [];
      moveSession(em, session, 'PaymentTerminated', payment, now);
      return { value: undefined, events: aborted };
    };
    const refusal = session.paymentId
      ? await runPaymentVerb(
          { em, clock: services.clock },
          {
            payment: { msn: session.msn, reference: session.reference },
            time: now,
            mayRecord: ['ABORTED'],
            decide: (taken) => cancel(taken?.payment),
          },
        )
      : (cancel(undefined) as { value: string | undefined }).value;
    await em.flush();
    if (refusal) return refused(services, em, session, refusal);
    return { ok: true, page: await describe(services, em, session), message: 'The payment was cancelled.' };
  });
}

async function refused(
  services: Services,
  em: Em,
  session: CheckoutSession,
  message: string,
  fieldErrors?: FieldErrors,
): Promise<BuyerOutcome> {
  return { ok: false, page: await describe(services, em, session), message, ...(fieldErrors ? { fieldErrors } : {}) };
}

/** Pay from a page that showed other prices: nothing is paid, and the page shows the buyer the new amount. */
function priceChanged(services: Services, em: Em, session: CheckoutSession, chosenId: string | undefined): Promise<BuyerOutcome> {
  const payable = payableNow(session, chosenId);
  const amount = `${formatAmount(payable.amount, session.currency)}${payable.plusShipping ? ' plus shipping' : ''}`;
  return refused(
    services,
    em,
    session,
    `The shop changed the amount while this page was open. You now pay ${amount}: check it, then choose Pay again.`,
  );
}

function sameAddress(a: SessionAddress | null | undefined, b: SessionAddress): boolean {
  return (
    Boolean(a) && a!.streetAddress === b.streetAddress && a!.postalCode === b.postalCode && a!.city === b.city && a!.country === b.country
  );
}
