import type { NetworkToken } from './network-token.js';
import type { PspPayment, PspPaymentLog } from './psp-payment.entity.js';
import { pspLandingUrl, transactionSummary } from './psp-payment.service.js';

/** The REST bodies of the PSP API v3 (FACTS §6). */
export function initiateResponse(payment: PspPayment, publicUrl: string) {
  return {
    pspTransactionId: payment.pspTransactionId,
    merchantOrderId: payment.merchantOrderId,
    vippsRedirectUrl: pspLandingUrl(publicUrl, payment.approvalToken!),
  };
}

/** A timestamp with its offset (UTC, `+00:00`), as `transactionLogHistory` shows it. */
export function withOffset(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

export function detailsResponse(payment: PspPayment, log: readonly PspPaymentLog[]) {
  return {
    pspTransactionId: payment.pspTransactionId,
    merchantOrderId: payment.merchantOrderId,
    transactionSummary: transactionSummary(payment),
    transactionLogHistory: log.map((entry) => ({
      amount: entry.amount,
      paymentText: entry.paymentText ?? '',
      timeStamp: withOffset(entry.occurredAt),
      operation: entry.operation,
      operationSuccess: entry.success,
    })),
  };
}

export function tokenPaymentResponse(payment: PspPayment, networkToken: NetworkToken) {
  return {
    pspTransactionId: payment.pspTransactionId,
    merchantOrderId: payment.merchantOrderId,
    paymentInstrument: 'TOKEN',
    networkToken,
  };
}

export const UPDATE_STATUS_ACCEPTED = { responseInfo: { responseCode: '9000', responseMessage: 'SUCCESS' } };
