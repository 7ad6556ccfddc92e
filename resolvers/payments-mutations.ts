import type { CreatePaymentInput, PaymentErrorCode, QrImageFormat, Resolvers } from '../src/generated/graphql.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import type { CreatePaymentFields } from '../src/payments/payment.commands.js';
import { cancelPayment, capturePayment, refundPayment } from '../src/payments/payment-modification.service.js';
import { checkIdempotencyKey, checkReference } from '../src/payments/payment.rules.js';
import { parseCreatePaymentFields, parseMoney } from '../src/payments/payment.schemas.js';
import { createPayment, getPayment } from '../src/payments/payment.service.js';
import { forceApprovePayment } from '../src/wallet/force-approve.service.js';
import { withDuplicateKeys } from '../src/platform/validation/json-text.js';

const PAYMENT_ERROR_CODES = userErrorCodes<PaymentErrorCode>({
  VALIDATION_FAILED: true,
  PAYMENT_NOT_FOUND: true,
  REFERENCE_ALREADY_EXISTS: true,
  IDEMPOTENCY_CONFLICT: true,
  IDEMPOTENCY_IN_FLIGHT: true,
  CAPTURE_AMOUNT_TOO_HIGH: true,
  CAPTURE_BEFORE_RESERVATION: true,
  CAPTURE_CANCELLED_PAYMENT: true,
  CAPTURE_PERIOD_EXPIRED: true,
  CAPTURE_INVALID_STATE: true,
  CANCEL_CAPTURED_PAYMENT: true,
  CANCEL_NON_RESERVED_PAYMENT: true,
  CANCEL_PERIOD_EXPIRED: true,
  CANCEL_INVALID_STATE: true,
  REFUND_NOT_ENOUGH_REFUNDABLE: true,
  REFUND_BEFORE_RESERVATION: true,
  REFUND_PERIOD_EXPIRED: true,
  REFUND_INVALID_STATE: true,
  REFUND_NOT_POSSIBLE: true,
  CURRENCY_MISMATCH: true,
  AMOUNT_TOO_SMALL: true,
  METADATA_CAPACITY_EXCEEDED: true,
  METADATA_DUPLICATE_KEYS: true,
  METADATA_KEY_LENGTH_EXCEEDED: true,
  METADATA_VALUE_LENGTH_EXCEEDED: true,
  LONG_LIVING_PAYMENT_NOT_ALLOWED: true,
  EXPIRATION_TOO_SOON: true,
  EXPIRATION_TOO_LATE: true,
  LONG_LIVING_REQUIRES_RECEIPT: true,
  CARD_NOT_AVAILABLE_IN_TEST: true,
  APPROVE_FAILED: true,
  CUSTOMER_NOT_FOUND: true,
  FORBIDDEN_IN_PRODUCTION: true,
  SALES_UNIT_DEACTIVATED: true,
  EXPRESS_PAYMENT_METHOD: true,
  EXPRESS_SCOPE: true,
  EXPRESS_SHIPPING_OPTIONS_MISSING: true,
  EXPRESS_NOT_ALLOWED: true,
  EXPRESS_APPROVE_NOT_ALLOWED: true,
});

const QR_FORMATS: Record<QrImageFormat, NonNullable<CreatePaymentFields['qrFormat']>['format']> = {
  TEXT_TARGETURL: 'TEXT/TARGETURL',
  IMAGE_SVG: 'IMAGE/SVG+XML',
  IMAGE_PNG: 'IMAGE/PNG',
};

/** The graph's mutations call the same services, and the same request rules, as REST. */
export const paymentMutationResolvers: Resolvers = {
  Mutation: {
    createPayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => {
        const key = checkIdempotencyKey(input.idempotencyKey);
        const command = parseCreatePaymentFields(createPaymentFields(input));
        const payment = await createPayment(request, command, key);
        return { payment, redirectUrl: payment.redirectUrl };
      }),
    capturePayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => ({
        payment: await capturePayment(
          request,
          checkReference(input.reference),
          { money: parseMoney(input.amount, 'amount'), field: 'amount' },
          checkIdempotencyKey(input.idempotencyKey),
        ),
      })),
    refundPayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => ({
        payment: await refundPayment(
          request,
          checkReference(input.reference),
          { money: parseMoney(input.amount, 'amount'), field: 'amount' },
          checkIdempotencyKey(input.idempotencyKey),
        ),
      })),
    cancelPayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => ({
        payment: await cancelPayment(request, checkReference(input.reference), checkIdempotencyKey(input.idempotencyKey)),
      })),
    approveTestPayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => {
        const reference = checkReference(input.reference);
        const customer = input.customer
          ? {
              phoneNumber: input.customer.phoneNumber ?? undefined,
              personalQr: input.customer.personalQr ?? undefined,
              customerToken: input.customer.customerToken ?? undefined,
            }
          : undefined;
        await forceApprovePayment(request, reference, { customer, token: input.token ?? undefined });
        return { payment: await getPayment(request, reference) };
      }),
  },
};

/**
 * The graph's input as the fields both faces share. GraphQL hands absent optional fields over as null; the shape
 * check reads a declared null as absent, as REST does.
 */
function createPaymentFields(input: CreatePaymentInput): CreatePaymentFields {
  const { metadata, qrFormat } = input;
  return {
    reference: input.reference,
    amount: input.amount,
    paymentMethod: input.paymentMethod,
    userFlow: input.userFlow,
    customer: input.customer,
    customerInteraction: input.customerInteraction,
    returnUrl: input.returnUrl,
    receiptUrl: input.receiptUrl,
    paymentDescription: input.paymentDescription,
    receipt: input.receipt,
    industryData: input.industryData,
    metadata: metadata == null ? undefined : metadataObject(metadata),
    profileScope: input.profileScope,
    minimumUserAge: input.minimumUserAge,
    expiresAt: input.expiresAt,
    qrFormat: qrFormat == null ? undefined : { format: QR_FORMATS[qrFormat.format], size: qrFormat.size },
    shipping: input.shipping,
  } as CreatePaymentFields;
}

/** The graph's list of pairs as REST's object; a key listed twice is refused (4110) by the create's rules, as on REST. */
function metadataObject(pairs: readonly { key: string; value: string }[]): Record<string, string> {
  const keys = pairs.map((m) => m.key);
  const repeated = [...new Set(keys.filter((key, i) => keys.indexOf(key) !== i))];
  return withDuplicateKeys(Object.fromEntries(pairs.map((m) => [m.key, m.value])), repeated);
}
