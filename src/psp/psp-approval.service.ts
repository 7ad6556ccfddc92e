import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { Merchant } from '../merchants/merchant.entity.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import type { SalesUnitContext, Services } from '../platform/context.js';
import { forkEm, type Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { drainDueWork, earliestDue } from '../platform/jobs/due-work.js';
import { timelineFilter } from '../platform/test-clocks.js';
import type { LiveReading, LiveState } from '../platform/events/wait-for-state.js';
import { isFinal } from '../platform/state-machine.js';
import { testUserApproves } from '../wallet/test-user-approval.js';
import type { WalletUser } from '../wallet/wallet-user.entity.js';
import { recordMakePaymentCallback } from './psp-make-payment.callback.js';
import { PspAgreement, PspPayment } from './psp-payment.entity.js';
import { PSP_PAYMENT_STREAM, recordPspChange } from './psp-payment.events.js';
import type { PspForceApproveCommand } from './psp-payment.schemas.js';
import { findOwnPspPayment } from './psp-payment.service.js';
import { movePspPayment, pspPaymentStateMachine } from './psp-payment.transitions.js';
import { signPspUserToken } from './psp-user-token.js';

/** Whether the wallet user may still act on the payment: initiated and not past its 10 minutes. */
export function pspAwaitsUser(payment: Pick<PspPayment, 'state' | 'expiresAt'>, now: Date): boolean {
  return payment.state === 'INITIATED' && payment.expiresAt.getTime() > now.getTime();
}

/**
 * The test user approves: the payment becomes ACCEPTED and the make-payment callback (with a user token when the
 * PSP asked for `psp_subscription`) is recorded in the same transaction, so the outbox sends it after any restart.
 */
function accept(em: Em, payment: PspPayment, user: WalletUser, now: Date, secret: string): void {
  movePspPayment(payment, 'ACCEPTED');
  payment.approvedBySub = user.sub;
  payment.updatedAt = now;
  let userToken: string | undefined;
  if (payment.scope === 'psp_subscription') {
    const agreement = em.create(PspAgreement, {
      id: randomUUID(),
      pspId: payment.pspId,
      msn: payment.msn,
      userSub: user.sub,
      status: 'ACTIVE',
      createdAt: now,
      stoppedAt: null,
    });
    payment.agreementId = agreement.id;
    userToken = signPspUserToken(agreement.id, now, secret);
  }
  recordPspChange(em, payment, now, { name: 'ACCEPTED' });
  recordMakePaymentCallback(em, payment, 'ACCEPTED', now, { userToken });
}

/** The user cancels on the landing page, or the payment timed out: the state and its callback commit together. */
function end(em: Em, payment: PspPayment, state: 'USER_CANCEL' | 'TIMEOUT', now: Date): void {
  movePspPayment(payment, state);
  payment.updatedAt = now;
  recordPspChange(em, payment, now, { name: state });
  recordMakePaymentCallback(em, payment, state, now);
}

/** Force approve (FACTS §6, test only): the same rules as ePayment force approve. */
export async function forceApprovePspPayment(
  ctx: SalesUnitContext,
  pspTransactionId: string,
  command: PspForceApproveCommand,
): Promise<void> {
  if (ctx.config.env !== 'test') throw new AppError('FORBIDDEN_IN_PRODUCTION', 'Force approve is only available in the test environment');
  const fail = (name: string, reason: string) => new AppError('PSP_APPROVE_FAILED', reason, [{ name, reason }]);
  const found = await findOwnPspPayment(ctx, pspTransactionId);
  const refusal = await ctx.em.transactional(async (em) => {
    const now = ctx.clock.now();
    const payment = await em.findOneOrFail(PspPayment, { id: found.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (command.token !== payment.approvalToken) throw fail('token', 'Not the token of this payment');
    if (payment.state === 'INITIATED' && !pspAwaitsUser(payment, now)) {
      end(em, payment, 'TIMEOUT', now);
      await em.flush();
      return fail('pspTransactionId', 'The payment timed out and cannot be approved');
    }
    if (!pspAwaitsUser(payment, now)) throw fail('pspTransactionId', `The payment is ${payment.state} and cannot be approved`);
    const approved = await testUserApproves(
      em,
      {
        phoneNumber: command.customerPhoneNumber,
        channel: 'force-approve',
        act: 'approve',
        customerPhoneNumber: payment.customerMobileNumber,
      },
      now,
    );
    if (!approved.ok) {
      throw fail(
        'customerPhoneNumber',
        approved.refusal === 'UNKNOWN_USER'
          ? `No test user has phone number ${command.customerPhoneNumber}`
          : approved.refusal === 'OTHER_CUSTOMER'
            ? 'The payment was initiated for another customer'
            : approved.message,
      );
    }
    accept(em, payment, approved.user, now, ctx.config.tokenSecret);
    return undefined;
  });
  if (refusal) throw refusal;
}

/** What the PSP landing page shows: only what the wallet app would show its user. */
export interface PspLandingPayment extends LiveState {
  merchantName: string;
  amount: number;
  currency: string;
  description: string | null;
  customerPhoneNumber: string | null;
  pspRedirectUrl: string | null;
  subscription: boolean;
}

export async function findPspLandingPayment(services: Services, token: string): Promise<PspLandingPayment | undefined> {
  const em = forkEm(services.orm);
  const payment = await em.findOne(PspPayment, { approvalToken: token });
  return payment ? describe(em, payment, services.testClocks.of(payment.msn).now()) : undefined;
}

/** The live state of the PSP payment behind a landing token, and the stream whose events change it: one statement. */
export async function readPspLandingLiveState(services: Services, token: string): Promise<LiveReading | undefined> {
  const payment = await forkEm(services.orm).findOne(PspPayment, { approvalToken: token }, { fields: ['id', 'msn', 'state', 'expiresAt'] });
  if (!payment) return undefined;
  return {
    stream: { msn: payment.msn, streamType: PSP_PAYMENT_STREAM, streamId: payment.id },
    live: pspLandingLiveState(payment, services.testClocks.of(payment.msn).now()),
  };
}

/**
 * The state as the wallet shows it (past its 10 minutes an initiated payment is the TIMEOUT it is about to be),
 * whether its user may act, and whether it is final: an ACCEPTED payment still waits for the PSP's answer.
 */
function pspLandingLiveState(payment: Pick<PspPayment, 'state' | 'expiresAt'>, now: Date): LiveState {
  const awaits = pspAwaitsUser(payment, now);
  const state = payment.state === 'INITIATED' && !awaits ? 'TIMEOUT' : payment.state;
  return { state, awaitsUser: awaits, settled: isFinal(pspPaymentStateMachine, state) };
}

async function describe(em: Em, payment: PspPayment, now: Date): Promise<PspLandingPayment> {
  const unit = await em.findOneOrFail(SalesUnit, { msn: payment.msn });
  const merchant = await em.findOne(Merchant, { id: unit.merchantId });
  return {
    merchantName: merchant?.name ?? unit.name,
    amount: payment.amount,
    currency: payment.currency,
    description: payment.paymentText ?? null,
    ...pspLandingLiveState(payment, now),
    customerPhoneNumber: payment.customerMobileNumber ?? null,
    pspRedirectUrl: payment.pspRedirectUrl ?? null,
    subscription: payment.scope === 'psp_subscription',
  };
}

export type PspLandingOutcome = { ok: true; payment: PspLandingPayment } | { ok: false; message: string; payment?: PspLandingPayment };

/** The person on the landing page approves as the test user with this phone number, or cancels. */
export async function actOnPspLanding(
  services: Services,
  token: string,
  action: { approve: string } | { cancel: true },
): Promise<PspLandingOutcome> {
  if (services.config.env !== 'test') return { ok: false, message: 'There is no simulated wallet user in production.' };
  return forkEm(services.orm).transactional(async (em) => {
    const payment = await em.findOne(PspPayment, { approvalToken: token }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!payment) return { ok: false, message: 'This payment link is not valid.' };
    const now = services.testClocks.of(payment.msn).now();
    if (!pspAwaitsUser(payment, now)) {
      if (payment.state === 'INITIATED') end(em, payment, 'TIMEOUT', now);
      return { ok: false, message: 'This payment can no longer be approved.', payment: await describe(em, payment, now) };
    }
    if ('cancel' in action) {
      end(em, payment, 'USER_CANCEL', now);
      return { ok: true, payment: await describe(em, payment, now) };
    }
    const approved = await testUserApproves(
      em,
      { phoneNumber: action.approve, channel: 'page', act: 'approve', customerPhoneNumber: payment.customerMobileNumber },
      now,
    );
    if (!approved.ok) {
      const message =
        approved.refusal === 'OTHER_CUSTOMER' ? 'This payment is for another phone number.' : 'No test user has this phone number.';
      return { ok: false, message, payment: await describe(em, payment, now) };
    }
    accept(em, payment, approved.user, now, services.config.tokenSecret);
    return { ok: true, payment: await describe(em, payment, now) };
  });
}

/** The timeout job: payments nobody acted on for 10 minutes become TIMEOUT, and the PSP is told. */
export function timeOutPspPayments(services: Services): Promise<number> {
  return drainDueWork(services, async (em, timeline, limit) => {
    const due = await em.find(
      PspPayment,
      { state: 'INITIATED', expiresAt: { $lte: timeline.now }, ...timelineFilter(timeline) },
      { orderBy: { expiresAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
    for (const payment of due) end(em, payment, 'TIMEOUT', timeline.now);
    await em.flush();
    return due.length;
  });
}

/** When the unit's first PSP payment nobody acted on times out (the test clock's advance stops there). */
export function nextPspPaymentTimeout(services: Services, msn: string): Promise<Date | null> {
  return earliestDue(services, `select min(expires_at) as due from psp_payment where msn = ? and state = 'INITIATED'`, [msn]);
}
