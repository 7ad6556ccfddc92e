import type { PaymentEvent } from './payment-event.entity.js';
import type { PaymentView } from './payment.view.js';

/** The REST bodies of the public ePayment definition: the documented fields and nothing invented. */
function money(currency: string, value: number) {
  return { currency, value };
}

function aggregateOf(view: PaymentView) {
  return {
    authorizedAmount: money(view.currency, view.authorizedAmount),
    cancelledAmount: money(view.currency, view.cancelledAmount),
    capturedAmount: money(view.currency, view.capturedAmount),
    refundedAmount: money(view.currency, view.refundedAmount),
  };
}

export function createPaymentResponse(view: PaymentView) {
  return view.redirectUrl ? { redirectUrl: view.redirectUrl, reference: view.reference } : { reference: view.reference };
}

export function getPaymentResponse(view: PaymentView) {
  return {
    aggregate: aggregateOf(view),
    amount: money(view.currency, view.amount),
    state: view.state,
    paymentMethod: view.cardBin ? { type: view.paymentMethodType, cardBin: view.cardBin } : { type: view.paymentMethodType },
    profile: view.profileSub ? { sub: view.profileSub } : {},
    pspReference: view.pspReference,
    reference: view.reference,
    ...(view.redirectUrl ? { redirectUrl: view.redirectUrl } : {}),
    ...(view.metadata ? { metadata: view.metadata } : {}),
    ...(view.shippingDetails ? { shippingDetails: view.shippingDetails } : {}),
    ...(view.userDetails ? { userDetails: view.userDetails } : {}),
    ...(view.personalDataRemovedAt ? { personalDataRemovedAt: view.personalDataRemovedAt } : {}),
  };
}

export function modificationResponse(view: PaymentView) {
  return {
    amount: money(view.currency, view.amount),
    state: view.state,
    aggregate: aggregateOf(view),
    pspReference: view.pspReference,
    reference: view.reference,
  };
}

export function paymentEventResponse(event: PaymentEvent) {
  return {
    reference: event.reference,
    pspReference: event.pspReference,
    name: event.name,
    amount: money(event.currency, event.amount),
    timestamp: event.occurredAt.toISOString(),
    idempotencyKey: event.idempotencyKey ?? null,
    success: event.success,
  };
}
