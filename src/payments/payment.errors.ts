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
  REFUND_NOT_POSSIBLE: { status: 400, title: 'Refund not possible', vippsCode: '5100', replayable: true },
  REFUND_PERIOD_EXPIRED: { status: 400, title: 'Refund period expired', vippsCode: '6220', replayable: true },
  REFUND_INVALID_STATE: { status: 400, title: 'Payment cannot be refunded: invalid state', vippsCode: '6210', replayable: true },
  // The catalogue (FACTS §14.3) has no code of its own for a modification in another currency than the payment's:
  // 4040 "invalid amount" is the one that says what is wrong with the request.
  CURRENCY_MISMATCH: { status: 400, title: 'Currency does not match the payment', vippsCode: '4040', replayable: true },
  AMOUNT_TOO_SMALL: { status: 400, title: 'Amount too small', vippsCode: '6010' },
  METADATA_CAPACITY_EXCEEDED: { status: 400, title: 'Metadata capacity exceeded', vippsCode: '4100' },
  METADATA_DUPLICATE_KEYS: { status: 400, title: 'Metadata duplicate keys', vippsCode: '4110' },
  METADATA_KEY_LENGTH_EXCEEDED: { status: 400, title: 'Metadata key length exceeded', vippsCode: '4120' },
  METADATA_VALUE_LENGTH_EXCEEDED: { status: 400, title: 'Metadata value length exceeded', vippsCode: '4130' },
  EXPIRATION_TOO_LATE: { status: 400, title: 'Expiration too late', vippsCode: '6110' },
  // The test environment's declined approval (test-failure-triggers.ts): force approve answers it as "Approve failed".
  APPROVAL_DECLINED: { status: 400, title: 'Approve failed', vippsCode: '10010', graphCode: 'APPROVE_FAILED' },
  // `minimumUserAge` not met (FACTS §14.3): the merchant hears 7010 "Customer not found", as on the platform.
  USER_UNDER_MINIMUM_AGE: { status: 400, title: 'Customer not found', vippsCode: '7010', graphCode: 'CUSTOMER_NOT_FOUND' },
  LONG_LIVING_PAYMENT_NOT_ALLOWED: { status: 400, title: 'Long-living payment not allowed', vippsCode: '5050' },
  EXPIRATION_TOO_SOON: { status: 400, title: 'Expiration too soon', vippsCode: '6120' },
  LONG_LIVING_REQUIRES_RECEIPT: { status: 400, title: 'Long living payments require a receipt', vippsCode: '6130' },
  // 4160 "invalid payment method type": the refusal names `paymentMethod.type`, at create; the 100xx test codes are
  // the test approval's.
  CARD_NOT_AVAILABLE_IN_TEST: { status: 400, title: 'Card payments are not available in the test environment', vippsCode: '4160' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof paymentErrors, CatalogueEntry> {}
}
