import Type, { type Static } from 'typebox';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { declareBody, isJsonObject } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';
import { stringEnum } from '../platform/validation/string-enum.js';

/** The PSP API v3 request bodies (FACTS §6, `OA/psp-v3.yaml`), checked by both faces. */

export const PSP_TRANSACTION_ID_PATTERN = /^[a-z0-9]{1,36}$/;
export const MERCHANT_ORDER_ID_PATTERN = /^[A-Za-z0-9-]{1,50}$/;
export const INT32_MAX = 2_147_483_647;
/** Both vocabularies of the status update (FACTS §0): the public enum and the spec's prose. */
export const PSP_UPDATE_STATUSES = ['RESERVED', 'CAPTURED', 'CANCELLED', 'REFUNDED', 'RESERVE', 'CAPTURE', 'REJECT'] as const;
export type PspUpdateStatus = (typeof PSP_UPDATE_STATUSES)[number];

const PspTransactionId = Type.String({
  pattern: PSP_TRANSACTION_ID_PATTERN.source,
  [REASONS]: { pattern: 'Must be 1 to 36 lowercase letters and digits' },
});
const MerchantOrderId = Type.String({
  pattern: MERCHANT_ORDER_ID_PATTERN.source,
  [REASONS]: { pattern: 'Must be 1 to 50 letters, digits or "-"' },
});
const Amount = Type.Integer({ minimum: 1, maximum: INT32_MAX });
const Currency = stringEnum(['NOK'] as const);
const MobileNumber = Type.String({ pattern: '^[0-9]{8}$', [REASONS]: { pattern: 'Must be 8 digits' } });

const InitiateRequest = Type.Object({
  pspTransactionId: PspTransactionId,
  merchantOrderId: MerchantOrderId,
  customerMobileNumber: Type.Optional(MobileNumber),
  amount: Amount,
  currency: Currency,
  pspRedirectUrl: Type.String({ minLength: 1, maxLength: 2048 }),
  makePaymentUrl: Type.String({ minLength: 1, maxLength: 2048 }),
  makePaymentToken: Type.Optional(Type.String({ maxLength: 255 })),
  paymentText: Type.Optional(Type.String({ maxLength: 255 })),
  isApp: Type.Optional(Type.Boolean()),
  skipLandingPage: Type.Optional(Type.Boolean()),
  scope: Type.Optional(stringEnum(['psp_subscription'] as const)),
  merchantAgreementUrl: Type.Optional(Type.String({ maxLength: 2048 })),
});
export type InitiatePspPaymentCommand = Static<typeof InitiateRequest>;

export const initiateBody: BodyShape<InitiatePspPaymentCommand> = declareBody(InitiateRequest, {
  fieldRules: (body) => {
    if (!isJsonObject(body) || typeof body.pspRedirectUrl !== 'string') return [];
    return /^https?:\/\/[^\s/]+/i.test(body.pspRedirectUrl) || /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(body.pspRedirectUrl)
      ? []
      : [{ name: 'pspRedirectUrl', reason: 'Must be an absolute URL' }];
  },
  toCommand: (body) => body,
});

const TransactionInfo = Type.Object({
  pspTransactionId: PspTransactionId,
  status: stringEnum(PSP_UPDATE_STATUSES),
  amount: Type.Integer({ minimum: 0, maximum: INT32_MAX }),
  currency: Type.Optional(Currency),
  paymentText: Type.Optional(Type.String({ maxLength: 255 })),
  operationStatus: Type.Optional(stringEnum(['SUCCESS', 'FAILED'] as const)),
});
export type PspTransactionUpdate = Static<typeof TransactionInfo>;

const UpdateStatusRequest = Type.Object({ transactions: Type.Array(TransactionInfo, { minItems: 1, maxItems: 1000 }) });

export const updateStatusBody: BodyShape<PspTransactionUpdate[]> = declareBody(UpdateStatusRequest, {
  toCommand: (body) => body.transactions,
});

const ForceApproveRequest = Type.Object({ customerPhoneNumber: MobileNumber, token: Type.String({ minLength: 1, maxLength: 1000 }) });
export type PspForceApproveCommand = Static<typeof ForceApproveRequest>;
export const pspForceApproveBody: BodyShape<PspForceApproveCommand> = declareBody(ForceApproveRequest, { toCommand: (body) => body });

const TokenPaymentRequest = Type.Object({
  pspTransactionId: PspTransactionId,
  merchantOrderId: MerchantOrderId,
  amount: Amount,
  currency: Currency,
  paymentText: Type.Optional(Type.String({ maxLength: 255 })),
});
export type PspTokenPaymentCommand = Static<typeof TokenPaymentRequest>;
export const tokenPaymentBody: BodyShape<PspTokenPaymentCommand> = declareBody(TokenPaymentRequest, { toCommand: (body) => body });
