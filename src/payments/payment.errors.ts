import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** The ePayment refusals, with their public codes (FACTS §1.4). */
export const paymentErrors = defineErrors('payments', {
  PAYMENT_NOT_FOUND: { status: 404, title: 'Reference not found', vippsCode: '5090' },
  REFERENCE_ALREADY_EXISTS: { status: 409, title: 'Reference already exists', vippsCode: '4150', replayable: true },
  CAPTURE_IDEMPOTENCY_CONFLICT: {
    status: 409,
    title: 'Capture idempotency conflict',
    vippsCode: '4010',
    graphCode: 'IDEMPOTENCY_CONFLICT',
  },
  REFUND_IDEMPOTENCY_CONFLICT: { status: 409, title: 'Refund idempotency conflict', vippsCode: '4150', graphCode: 'IDEMPOTENCY_CONFLICT' },
  CAPTURE_AMOUNT_TOO_HIGH: { status: 400, title: 'Capture amount too high', vippsCode: '6090', replayable: true },
  CAPTURE_BEFORE_RESERVATION: { status: 400, title: 'Cannot capture before reservation', vippsCode: '6080', replayable: true },
  CAPTURE_CANCELLED_PAYMENT: { status: 400, title: 'Cannot capture a cancelled payment', vippsCode: '6070', replayable: true },
  CAPTURE_PERIOD_EXPIRED: { status: 400, title: 'Capture period expired', vippsCode: '6100', replayable: true },
  CAPTURE_INVALID_STATE: { status: 400, title: 'Payment cannot be captured: invalid state', vippsCode: '6200', replayable: true },
  CANCEL_CAPTURED_PAYMENT: { status: 400, title: 'Cannot cancel a captured payment', vippsCode: '6040', replayable: true },
  CANCEL_NON_RESERVED_PAYMENT: { status: 400, title: 'Cannot cancel a non-reserved payment', vippsCode: '6050', replayable: true },
  CANCEL_PERIOD_EXPIRED: { status: 400, title: 'Cancel period expired', vippsCode: '6030', replayable: true },
  CANCEL_INVALID_STATE: { status: 400, title: 'Payment cannot be cancelled: invalid state', vippsCode: '6190', replayable: true },
  REFUND_NOT_ENOUGH_REFUNDABLE: { status: 400, title: 'Not enough refundable', vippsCode: '6150', replayable: true },
  REFUND_BEFORE_RESERVATION: { status: 400, title: 'Attempted refund before reservation', vippsCode: '6020', replayable: true },
  REFUND_PERIOD_EXPIRED: { status: 400, title: 'Refund period expired', vippsCode: '6220', replayable: true },
  REFUND_INVALID_STATE: { status: 400, title: 'Payment cannot be refunded: invalid state', vippsCode: '6210', replayable: true },
  CURRENCY_MISMATCH: { status: 400, title: 'Currency does not match the payment', replayable: true },
  AMOUNT_TOO_SMALL: { status: 400, title: 'Amount too small' },
  LONG_LIVING_PAYMENT_NOT_ALLOWED: { status: 400, title: 'Long-living payment not allowed', vippsCode: '5050' },
  EXPIRATION_TOO_SOON: { status: 400, title: 'Expiration too soon', vippsCode: '6120' },
  LONG_LIVING_REQUIRES_RECEIPT: { status: 400, title: 'Long living payments require a receipt', vippsCode: '6130' },
  CARD_NOT_AVAILABLE_IN_TEST: { status: 400, title: 'Card payments are not available in the test environment' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof paymentErrors, CatalogueEntry> {}
}
