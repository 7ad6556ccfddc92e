import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { SalesUnitContext } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { issueNetworkToken, type NetworkToken } from './network-token.js';
import { PspAgreement, PspPayment } from './psp-payment.entity.js';
import { recordPspChange } from './psp-payment.events.js';
import { movePspPayment } from './psp-payment.transitions.js';
import type { PspTokenPaymentCommand } from './psp-payment.schemas.js';
import { pspOf, refuseDuplicates } from './psp-payment.service.js';
import { pspSalesUnitTakingPayments } from './psp-sales-unit.rules.js';
import { agreementOfUserToken } from './psp-user-token.js';

/** The active agreement a `User-Token` names, of this PSP and sales unit (codes 121 to 124). */
async function agreementOf(ctx: SalesUnitContext, em: Em, userToken: string | undefined, lock: boolean): Promise<PspAgreement> {
  const psp = pspOf(ctx);
  const id = userToken ? agreementOfUserToken(userToken, ctx.clock.now(), ctx.config.tokenSecret) : undefined;
  if (!id)
    throw new AppError('PSP_USER_TOKEN_INVALID', 'The User-Token is not a valid user token', [
      { name: 'User-Token', reason: 'Invalid or expired' },
    ]);
  const agreement = await em.findOne(PspAgreement, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!agreement || agreement.pspId !== psp.pspId) {
    throw new AppError('PSP_AGREEMENT_NOT_FOUND', 'No agreement of this PSP for the User-Token', [
      { name: 'User-Token', reason: 'Agreement not found' },
    ]);
  }
  if (agreement.msn !== ctx.scope.msn) {
    throw new AppError('PSP_AGREEMENT_OTHER_SALES_UNIT', 'The agreement belongs to another sales unit', [
      { name: 'Merchant-Serial-Number', reason: 'Not the sales unit of the agreement' },
    ]);
  }
  if (agreement.status !== 'ACTIVE') {
    throw new AppError('PSP_AGREEMENT_STOPPED', 'The agreement has been ended', [{ name: 'User-Token', reason: 'Agreement stopped' }]);
  }
  return agreement;
}

/** `DELETE /psppayments/agreements`: ends the agreement; its user token is refused from then on. */
export async function deletePspAgreement(ctx: SalesUnitContext, userToken: string | undefined): Promise<void> {
  await ctx.em.transactional(async (em) => {
    const agreement = await agreementOf(ctx, em, userToken, true);
    agreement.status = 'STOPPED';
    agreement.stoppedAt = ctx.clock.now();
  });
}

export interface TokenPaymentResult {
  payment: PspPayment;
  networkToken: NetworkToken;
}

/**
 * Card data for a merchant-initiated payment on a stored token: a fresh network token, and a payment in ACCEPTED
 * that the PSP's status update (RESERVED, or a failed reserve) settles.
 */
export async function processPaymentOnToken(
  ctx: SalesUnitContext,
  userToken: string | undefined,
  command: PspTokenPaymentCommand,
): Promise<TokenPaymentResult> {
  const psp = pspOf(ctx);
  try {
    return await ctx.em.transactional(async (em) => {
      const now = ctx.clock.now();
      await pspSalesUnitTakingPayments(em, psp.pspId, ctx.scope.msn);
      const agreement = await agreementOf(ctx, em, userToken, false);
      await refuseDuplicates(em, psp.pspId, ctx.scope.msn, command.pspTransactionId, command.merchantOrderId);
      const payment = em.create(PspPayment, {
        id: randomUUID(),
        pspId: psp.pspId,
        msn: ctx.scope.msn,
        pspTransactionId: command.pspTransactionId,
        merchantOrderId: command.merchantOrderId,
        amount: command.amount,
        currency: command.currency,
        state: 'INITIATED',
        customerMobileNumber: null,
        pspRedirectUrl: null,
        makePaymentUrl: null,
        makePaymentToken: null,
        paymentText: command.paymentText ?? null,
        isApp: false,
        skipLandingPage: false,
        scope: null,
        merchantAgreementUrl: null,
        approvalToken: null,
        agreementId: agreement.id,
        approvedBySub: agreement.userSub,
        reservedAmount: 0,
        capturedAmount: 0,
        cancelledAmount: 0,
        refundedAmount: 0,
        createdAt: now,
        updatedAt: now,
        expiresAt: now,
      });
      recordPspChange(em, payment, now, { name: 'INITIATED' });
      // Card data handed over: the agreement stands for the user's approval.
      movePspPayment(payment, 'ACCEPTED');
      recordPspChange(em, payment, now, { name: 'ACCEPTED' });
      return { payment, networkToken: issueNetworkToken(now) };
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw new AppError('PSP_TRANSACTION_EXISTS', `pspTransactionId ${command.pspTransactionId} already exists`, [
        { name: 'pspTransactionId', reason: 'Already used' },
      ]);
    }
    throw error;
  }
}
