/**
 * Every expected failure of the service, once. `vippsCode` is the public ePayment error code where one exists
 * (FACTS §1.4); the REST face puts it in `extraDetails` as `ErrorCode`, the graph in `userErrors.code`.
 * `replayable` failures depend on the state of the resource, so an idempotent retry must get the same answer.
 */
export interface CatalogueEntry {
  status: number;
  title: string;
  vippsCode?: string;
  replayable?: boolean;
  /**
   * The graph's code where its error enum has one code for several REST titles (the schema names one
   * IDEMPOTENCY_CONFLICT; REST distinguishes capture, refund and the rest, FACTS §1.4).
   */
  graphCode?: string;
}

const entries = {
  VALIDATION_FAILED: { status: 400, title: 'Bad Request' },
  MALFORMED_JSON: { status: 400, title: 'Bad Request' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  INVALID_CLIENT_CREDENTIALS: { status: 401, title: 'Unauthorized' },
  FORBIDDEN_SALES_UNIT: { status: 403, title: 'Forbidden' },
  FORBIDDEN_PRINCIPAL: { status: 403, title: 'Forbidden' },
  FORBIDDEN_IN_PRODUCTION: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not Found' },
  PAYMENT_NOT_FOUND: { status: 404, title: 'Reference not found', vippsCode: '5090' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method Not Allowed' },
  REFERENCE_ALREADY_EXISTS: { status: 409, title: 'Reference already exists', vippsCode: '4150', replayable: true },
  IDEMPOTENCY_CONFLICT: { status: 409, title: 'Idempotency error: Idempotency-Key already exists', vippsCode: '4020' },
  CAPTURE_IDEMPOTENCY_CONFLICT: {
    status: 409,
    title: 'Capture idempotency conflict',
    vippsCode: '4010',
    graphCode: 'IDEMPOTENCY_CONFLICT',
  },
  REFUND_IDEMPOTENCY_CONFLICT: { status: 409, title: 'Refund idempotency conflict', vippsCode: '4150', graphCode: 'IDEMPOTENCY_CONFLICT' },
  IDEMPOTENCY_IN_FLIGHT: { status: 409, title: 'Order processing: concurrent request', vippsCode: '6160' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported Media Type' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload Too Large' },

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
  APPROVE_FAILED: { status: 400, title: 'Approve failed', vippsCode: '10010' },
  CUSTOMER_NOT_FOUND: { status: 400, title: 'Customer not found', vippsCode: '7010' },
  WEBHOOK_NOT_FOUND: { status: 404, title: 'Webhook not found' },
  WEBHOOK_LIMIT_REACHED: { status: 400, title: 'Too many webhooks for this event' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, title: 'Webhook delivery not found' },
  WEBHOOK_DELIVERY_ALREADY_DELIVERED: { status: 409, title: 'Webhook delivery already delivered' },
  INTERNAL: { status: 500, title: 'Internal Server Error' },
} satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof entries;
export const catalogue: Record<ErrorCode, CatalogueEntry> = entries;
