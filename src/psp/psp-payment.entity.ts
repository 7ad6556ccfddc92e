import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { PspPaymentState } from './psp-payment.transitions.js';

/** A sales unit that takes PSP payments: seeded for the PSP's own merchants, created by PSP signup. */
export const PspSalesUnit = defineEntity({
  name: 'PspSalesUnit',
  tableName: 'psp_sales_unit',
  properties: {
    msn: p.string().primary(),
    pspId: p.uuid(),
    /** `skipLandingPage` is allowed for this sales unit (FACTS §6: whitelisting). */
    skipLandingPageAllowed: p.boolean(),
    /** False once its merchant is deactivated: it takes no more PSP payments. */
    active: p.boolean(),
    createdAt: p.datetime(),
  },
});
export type PspSalesUnit = InferEntity<typeof PspSalesUnit>;

/** One PSP payment. Money in minor units; the database guards captured + cancelled <= reserved, refunded <= captured. */
export const PspPayment = defineEntity({
  name: 'PspPayment',
  tableName: 'psp_payment',
  properties: {
    id: p.uuid().primary(),
    pspId: p.uuid(),
    msn: p.string(),
    pspTransactionId: p.string(),
    merchantOrderId: p.string(),
    amount: p.bigint('number'),
    currency: p.string(),
    state: p.string().$type<PspPaymentState>(),
    customerMobileNumber: p.string().nullable(),
    pspRedirectUrl: p.string().nullable(),
    makePaymentUrl: p.string().nullable(),
    makePaymentToken: p.string().nullable(),
    paymentText: p.string().nullable(),
    isApp: p.boolean(),
    skipLandingPage: p.boolean(),
    scope: p.string().nullable(),
    merchantAgreementUrl: p.string().nullable(),
    /** The `token` of `vippsRedirectUrl`: what the landing page and force approve present. */
    approvalToken: p.string().nullable(),
    agreementId: p.uuid().nullable(),
    approvedBySub: p.uuid().nullable(),
    reservedAmount: p.bigint('number'),
    capturedAmount: p.bigint('number'),
    cancelledAmount: p.bigint('number'),
    refundedAmount: p.bigint('number'),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
export type PspPayment = InferEntity<typeof PspPayment>;

/** One operation on a PSP payment, as `transactionLogHistory` shows it. */
export const PspPaymentLog = defineEntity({
  name: 'PspPaymentLog',
  tableName: 'psp_payment_log',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    pspPaymentId: p.uuid(),
    operation: p.string(),
    amount: p.bigint('number'),
    paymentText: p.string().nullable(),
    success: p.boolean(),
    occurredAt: p.datetime(),
  },
});
export type PspPaymentLog = InferEntity<typeof PspPaymentLog>;

/** A status update the PSP reported; the nightly batch applies it (`appliedAt`, `outcome`). */
export const PspStatusUpdate = defineEntity({
  name: 'PspStatusUpdate',
  tableName: 'psp_status_update',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    pspId: p.uuid(),
    pspPaymentId: p.uuid(),
    status: p.string(),
    operationStatus: p.string(),
    amount: p.bigint('number'),
    currency: p.string(),
    paymentText: p.string().nullable(),
    receivedAt: p.datetime(),
    appliedAt: p.datetime().nullable(),
    outcome: p.string().nullable(),
  },
});
export type PspStatusUpdate = InferEntity<typeof PspStatusUpdate>;

/** A recurring agreement made by approving with `scope: psp_subscription`; its `userToken` names it. */
export const PspAgreement = defineEntity({
  name: 'PspAgreement',
  tableName: 'psp_agreement',
  properties: {
    id: p.uuid().primary(),
    pspId: p.uuid(),
    msn: p.string(),
    userSub: p.uuid(),
    status: p.string().$type<'ACTIVE' | 'STOPPED'>(),
    createdAt: p.datetime(),
    stoppedAt: p.datetime().nullable(),
  },
});
export type PspAgreement = InferEntity<typeof PspAgreement>;

/** One nightly batch run per PSP sales unit and period (UTC date of the unit's time): the row settles which instance runs it. */
export const PspBatchRun = defineEntity({
  name: 'PspBatchRun',
  tableName: 'psp_batch_run',
  properties: {
    msn: p.string().primary(),
    period: p.string().primary(),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
    appliedCount: p.integer(),
  },
});
export type PspBatchRun = InferEntity<typeof PspBatchRun>;
