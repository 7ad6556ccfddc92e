import { randomBytes } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { PspPrincipal } from '../platform/auth/principal.js';
import { scoped } from '../platform/auth/tenancy.js';
import type { RequestContext, SalesUnitContext } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { outboundUrlProblem } from '../platform/delivery/outbound-url.js';
import { AppError } from '../platform/errors/app-error.js';
import { PspPayment, PspPaymentLog } from './psp-payment.entity.js';
import { recordPspChange } from './psp-payment.events.js';
import type { InitiatePspPaymentCommand } from './psp-payment.schemas.js';
import { pspSalesUnitTakingPayments } from './psp-sales-unit.rules.js';
import { timeOrderedId } from '../platform/db/time-ordered-id.js';

/** How long the wallet user has to act before the payment times out (FACTS §6: 10 minutes). */
export const PSP_PAYMENT_TIMEOUT_MS = 10 * 60 * 1000;

/** The PSP a context acts as; every PSP operation (payments, agreements, signup) is refused to other principals. */
export function pspOf(ctx: RequestContext): PspPrincipal {
  if (ctx.principal.kind !== 'psp') {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'Only a PSP may use the PSP interfaces', [
      { name: 'Authorization', reason: `Not accepted here: credentials of a ${ctx.principal.kind}` },
    ]);
  }
  return ctx.principal;
}

/** Where the wallet user approves a PSP payment: the `vippsRedirectUrl`. */
export function pspLandingUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/wallet/psp?token=${encodeURIComponent(token)}`;
}

/** Initiates a PSP payment for the sales unit of the request (FACTS §6 "Initiate"). */
export async function initiatePspPayment(ctx: SalesUnitContext, command: InitiatePspPaymentCommand): Promise<PspPayment> {
  const psp = pspOf(ctx);
  const urlProblem = await outboundUrlProblem(command.makePaymentUrl, ctx.config.env);
  if (urlProblem) throw AppError.validation([{ name: 'makePaymentUrl', reason: urlProblem }]);
  const { msn } = scoped(ctx);
  try {
    return await ctx.em.transactional(async (em) => {
      const now = ctx.clock.now();
      const unit = await pspSalesUnitTakingPayments(em, psp.pspId, msn);
      if (command.skipLandingPage && !unit.skipLandingPageAllowed) {
        throw new AppError('PSP_SKIP_LANDING_PAGE_NOT_ALLOWED', 'This sales unit may not skip the landing page', [
          { name: 'skipLandingPage', reason: 'The sales unit is not allowed to skip the landing page' },
        ]);
      }
      if (command.skipLandingPage && !command.customerMobileNumber) {
        throw new AppError('PSP_SKIP_LANDING_PAGE_NOT_ALLOWED', 'Skipping the landing page needs a valid customerMobileNumber', [
          { name: 'customerMobileNumber', reason: 'Required with skipLandingPage' },
        ]);
      }
      await refuseDuplicates(em, psp.pspId, msn, command.pspTransactionId, command.merchantOrderId);
      const payment = em.create(PspPayment, {
        id: timeOrderedId(),
        pspId: psp.pspId,
        msn,
        pspTransactionId: command.pspTransactionId,
        merchantOrderId: command.merchantOrderId,
        amount: command.amount,
        currency: command.currency,
        state: 'INITIATED',
        customerMobileNumber: command.customerMobileNumber ?? null,
        pspRedirectUrl: command.pspRedirectUrl,
        makePaymentUrl: command.makePaymentUrl,
        makePaymentToken: command.makePaymentToken ?? null,
        paymentText: command.paymentText ?? null,
        isApp: command.isApp ?? false,
        skipLandingPage: command.skipLandingPage ?? false,
        scope: command.scope ?? null,
        merchantAgreementUrl: command.merchantAgreementUrl ?? null,
        approvalToken: randomBytes(24).toString('base64url'),
        agreementId: null,
        approvedBySub: null,
        reservedAmount: 0,
        capturedAmount: 0,
        cancelledAmount: 0,
        refundedAmount: 0,
        createdAt: now,
        updatedAt: now,
        expiresAt: new Date(now.getTime() + PSP_PAYMENT_TIMEOUT_MS),
      });
      recordPspChange(em, payment, now, { name: 'INITIATED' });
      return payment;
    });
  } catch (error) {
    // Two requests raced past the checks: the unique constraints settle it with the same codes.
    if (error instanceof UniqueConstraintViolationException) throw duplicateError(error.message, command);
    throw error;
  }
}

export async function refuseDuplicates(
  em: Em,
  pspId: string,
  msn: string,
  pspTransactionId: string,
  merchantOrderId: string,
): Promise<void> {
  if ((await em.count(PspPayment, { pspId, pspTransactionId })) > 0) {
    throw duplicateError('psp_payment_transaction_unique', { pspTransactionId, merchantOrderId });
  }
  if ((await em.count(PspPayment, { msn, merchantOrderId })) > 0) {
    throw duplicateError('psp_payment_order_unique', { pspTransactionId, merchantOrderId });
  }
}

function duplicateError(message: string, command: { pspTransactionId: string; merchantOrderId: string }): AppError {
  if (/psp_payment_order_unique/.test(message)) {
    return new AppError('PSP_ORDER_EXISTS', `merchantOrderId ${command.merchantOrderId} already exists for this sales unit`, [
      { name: 'merchantOrderId', reason: 'Already used by another payment of this sales unit' },
    ]);
  }
  return new AppError('PSP_TRANSACTION_EXISTS', `pspTransactionId ${command.pspTransactionId} already exists`, [
    { name: 'pspTransactionId', reason: 'Already used by another payment of this PSP' },
  ]);
}

/** The PSP's payment of the request's sales unit; another PSP's (or sales unit's) is a 404 like a missing one. */
export async function findOwnPspPayment(ctx: SalesUnitContext, pspTransactionId: string): Promise<PspPayment> {
  const psp = pspOf(ctx);
  const payment = await ctx.em.findOne(PspPayment, { pspId: psp.pspId, pspTransactionId, ...scoped(ctx) });
  if (!payment) {
    throw new AppError('PSP_TRANSACTION_NOT_FOUND', `No PSP payment ${pspTransactionId}`, [
      { name: 'pspTransactionId', reason: 'Not found' },
    ]);
  }
  return payment;
}

export interface PspPaymentDetails {
  payment: PspPayment;
  log: PspPaymentLog[];
}

export async function getPspPaymentDetails(ctx: SalesUnitContext, pspTransactionId: string): Promise<PspPaymentDetails> {
  const payment = await findOwnPspPayment(ctx, pspTransactionId);
  const log = await ctx.em.find(PspPaymentLog, { pspPaymentId: payment.id }, { orderBy: { id: 'asc' } });
  return { payment, log };
}

/** `transactionSummary` (FACTS §6): what is captured and refunded, and what remains of each. */
export function transactionSummary(payment: PspPayment) {
  return {
    capturedAmount: payment.capturedAmount,
    remainingAmountToCapture: payment.reservedAmount - payment.capturedAmount - payment.cancelledAmount,
    refundedAmount: payment.refundedAmount,
    remainingAmountToRefund: payment.capturedAmount - payment.refundedAmount,
  };
}
