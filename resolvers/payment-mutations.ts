import type { PaymentErrorCode, QrImageFormat, Resolvers } from '../src/generated/graphql.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import { parseCreatePayment } from '../src/payments/create-payment.validation.js';
import { cancelPayment, capturePayment, refundPayment } from '../src/payments/payment-modification.service.js';
import { createPayment, getPayment } from '../src/payments/payment.service.js';
import { forceApprovePayment } from '../src/wallet/force-approve.service.js';
import { AppError } from '../src/platform/errors/app-error.js';

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
  CURRENCY_MISMATCH: true,
  AMOUNT_TOO_SMALL: true,
  LONG_LIVING_PAYMENT_NOT_ALLOWED: true,
  EXPIRATION_TOO_SOON: true,
  LONG_LIVING_REQUIRES_RECEIPT: true,
  CARD_NOT_AVAILABLE_IN_TEST: true,
  APPROVE_FAILED: true,
  CUSTOMER_NOT_FOUND: true,
  FORBIDDEN_IN_PRODUCTION: true,
});

const QR_FORMATS: Record<QrImageFormat, string> = { TEXT_TARGETURL: 'TEXT/TARGETURL', IMAGE_SVG: 'IMAGE/SVG+XML', IMAGE_PNG: 'IMAGE/PNG' };

function idempotencyKey(key: string): string {
  if (key.trim() === '' || key.length > 50) throw AppError.validation([{ name: 'idempotencyKey', reason: 'Must be 1 to 50 characters' }]);
  return key;
}

/** The graph's mutations call the same services as REST; create goes through the same body rules. */
export const paymentMutationResolvers: Resolvers = {
  Mutation: {
    createPayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => {
        const { idempotencyKey: key, paymentMethod, profileScope, metadata, qrFormat, ...rest } = input;
        const body = {
          ...rest,
          paymentMethod: { type: paymentMethod },
          profile: profileScope == null ? undefined : { scope: profileScope },
          metadata: metadata == null ? undefined : Object.fromEntries(metadata.map((m) => [m.key, m.value])),
          qrFormat: qrFormat == null ? undefined : { format: QR_FORMATS[qrFormat.format], size: qrFormat.size },
        };
        const command = parseCreatePayment(body, { env: request.config.env, now: request.clock.now() });
        const payment = await createPayment(request, command, idempotencyKey(key));
        return { payment, redirectUrl: payment.redirectUrl };
      }),
    capturePayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => ({
        payment: await capturePayment(request, input.reference, positive(input.amount), idempotencyKey(input.idempotencyKey)),
      })),
    refundPayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => ({
        payment: await refundPayment(request, input.reference, positive(input.amount), idempotencyKey(input.idempotencyKey)),
      })),
    cancelPayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => ({
        payment: await cancelPayment(request, input.reference, idempotencyKey(input.idempotencyKey)),
      })),
    approveTestPayment: (_, { input }, { request }) =>
      withUserErrors(PAYMENT_ERROR_CODES, async () => {
        const customer = input.customer
          ? {
              phoneNumber: input.customer.phoneNumber ?? undefined,
              personalQr: input.customer.personalQr ?? undefined,
              customerToken: input.customer.customerToken ?? undefined,
            }
          : undefined;
        await forceApprovePayment(request, input.reference, { customer, token: input.token ?? undefined });
        return { payment: await getPayment(request, input.reference) };
      }),
  },
};

function positive(amount: { value: number; currency: 'NOK' | 'DKK' | 'EUR' }) {
  if (amount.value <= 0 || amount.value > 65_000_000)
    throw AppError.validation([{ name: 'amount.value', reason: 'Must be from 1 to 65000000' }]);
  return amount;
}
