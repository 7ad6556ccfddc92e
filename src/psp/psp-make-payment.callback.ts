import { LockMode } from '@mikro-orm/core';
import type { Em } from '../platform/db/orm.js';
import type { CallbackKind } from '../platform/delivery/callback-kinds.js';
import type { AttemptOutcome } from '../platform/delivery/delivery-channel.js';
import { recordCallback } from '../platform/delivery/record-callback.js';
import { issueNetworkToken, type NetworkToken } from './network-token.js';
import { PspPayment } from './psp-payment.entity.js';
import { PSP_PAYMENT_STREAM, recordPspChange } from './psp-payment.events.js';
import { movePspPayment } from './psp-payment.transitions.js';

export type MakePaymentState = 'ACCEPTED' | 'TIMEOUT' | 'USER_CANCEL';

/**
 * The make-payment callback (FACTS §6): one POST with a 15 s timeout (`PAYGRAPH_PSP_CALLBACK_TIMEOUT_MS`) and no
 * retry, since the PSP's answer decides the payment (200 with `paymentInfo.status: OK` makes it RESERVED; anything
 * else, no answer in time or a refused connection makes it FAILED).
 */
export const makePaymentCallback: CallbackKind = {
  name: 'psp.make-payment',
  timeoutMs: (config) => config.pspCallbackTimeoutMs,
  retry: { maxAttempts: 1, firstDelayMs: 1_000, maxDelayMs: 1_000 },
  readResponseBody: true,
  onOutcome: settleAcceptedPayment,
};

/** Records the callback in the change's unit of work (sent from the outbox, so a restart loses none). */
export function recordMakePaymentCallback(
  em: Em,
  payment: PspPayment,
  state: MakePaymentState,
  now: Date,
  extra: { userToken?: string } = {},
): void {
  if (!payment.makePaymentUrl) return;
  const networkToken = state === 'ACCEPTED' ? issueNetworkToken(now) : noCredential();
  recordCallback(
    em,
    makePaymentCallback,
    {
      streamType: PSP_PAYMENT_STREAM,
      streamId: payment.id,
      msn: payment.msn,
      url: payment.makePaymentUrl,
      authorization: payment.makePaymentToken,
      body: {
        pspTransactionId: payment.pspTransactionId,
        merchantSerialNumber: payment.msn,
        paymentState: state,
        ...(extra.userToken ? { userToken: extra.userToken } : {}),
        binNumber: networkToken.number.slice(0, 6),
        operations: [{ operation: state === 'ACCEPTED' ? '3dssuccess' : '3dscancel' }],
        paymentInstrument: 'TOKEN',
        networkToken,
      },
    },
    now,
  );
}

/**
 * What a USER_CANCEL or TIMEOUT callback carries as its network token. The definition makes `networkToken` and
 * `binNumber` required in every callback, so the shape stays, but the user authorised no payment: no token number,
 * cryptogram, expiry or ECI leaves the service, only empty values (a deliberate reading, see the README).
 * `tokenType` is an enum without an empty value, so it keeps one.
 */
function noCredential(): NetworkToken {
  return { number: '', cryptogram: '', expiryMonth: '', expiryYear: '', tokenType: 'VISA', eci: '' };
}

/** Whether the PSP's answer accepts the card data: 200 and `paymentInfo.status` OK. */
export function answerAccepts(outcome: Pick<AttemptOutcome, 'statusCode' | 'responseBody'>): boolean {
  if (outcome.statusCode !== 200 || !outcome.responseBody) return false;
  try {
    const answer = JSON.parse(outcome.responseBody) as { paymentInfo?: { status?: unknown } };
    return answer?.paymentInfo?.status === 'OK';
  } catch {
    return false;
  }
}

async function settleAcceptedPayment(em: Em, outcome: AttemptOutcome, now: Date): Promise<void> {
  if (outcome.streamType !== PSP_PAYMENT_STREAM || !outcome.final) return;
  const payment = await em.findOne(PspPayment, { id: outcome.streamId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  // Only the ACCEPTED callback waits for an answer; USER_CANCEL and TIMEOUT callbacks change nothing.
  if (!payment || payment.state !== 'ACCEPTED') return;
  const ok = answerAccepts(outcome);
  const to = ok ? 'RESERVED' : 'FAILED';
  movePspPayment(payment, to);
  payment.updatedAt = now;
  if (ok) payment.reservedAmount = payment.amount;
  recordPspChange(em, payment, now, {
    name: to,
    log: { operation: 'RESERVED', amount: payment.amount, paymentText: payment.paymentText ?? null, success: ok },
  });
}
