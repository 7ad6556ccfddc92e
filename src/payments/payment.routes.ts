import { MERCHANT_API_AUTH, MERCHANT_API_HEADERS } from '../platform/auth/merchant-api.js';
import type { Services } from '../platform/context.js';
import { epaymentProblem } from '../platform/rest/error-formats/epayment-problem.js';
import type { ParamRule } from '../platform/rest/path-params.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { forceApprovePayment } from '../wallet/force-approve.service.js';
import { cancelPayment, capturePayment, refundPayment } from './payment-modification.service.js';
import { createPaymentResponse, getPaymentResponse, modificationResponse, paymentEventResponse } from './payment.presenter.js';
import { REFERENCE_PATTERN } from './payment.rules.js';
import { PaymentResponse } from './payment.response-schema.js';
import { createPaymentBody, forceApproveBody, modificationBody } from './payment.schemas.js';
import { createPayment, getPayment, getPaymentEvents } from './payment.service.js';

const reference: ParamRule = {
  accepts: (value) => REFERENCE_PATTERN.test(value),
  reason: 'Must be 8 to 50 letters, digits or "-"',
  jsonSchema: { type: 'string', pattern: REFERENCE_PATTERN.source },
};

/** The ePayment API v1 (FACTS §1.1): thin translations between HTTP and the payment services. */
export function paymentRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    { name: 'ePayment API', prefix: '/epayment/v1', errorFormat: epaymentProblem, auth: MERCHANT_API_AUTH, headers: MERCHANT_API_HEADERS },
    (route) => [
      route({
        method: 'POST',
        path: '/payments',
        summary: 'Create a payment',
        idempotent: true,
        body: createPaymentBody,
        success: { status: 201, description: 'The payment was created' },
        handler: async (ctx, { body, idempotencyKey }) => ({
          status: 201,
          body: createPaymentResponse(await createPayment(ctx, body, idempotencyKey)),
        }),
      }),
      route({
        method: 'GET',
        path: '/payments/{reference}',
        summary: 'Get a payment',
        idempotent: false,
        params: { reference },
        success: {
          status: 200,
          schema: PaymentResponse,
          description:
            'The payment; once AUTHORIZED, `userDetails` (the consented scopes: firstName, lastName, email, mobileNumber, addresses) when a profile scope was asked for, and `shippingDetails` (address, shippingOptionId, shippingOptionName, shippingCost in minor units) for an Express payment; after their retention once the payment ended (README, Data lifecycle) neither, and `personalDataRemovedAt` says when they were removed',
        },
        handler: async (ctx, { params }) => ({ status: 200, body: getPaymentResponse(await getPayment(ctx, params.reference)) }),
      }),
      route({
        method: 'GET',
        path: '/payments/{reference}/events',
        summary: "Get a payment's event log",
        idempotent: false,
        params: { reference },
        success: { status: 200, description: 'The events, oldest first' },
        handler: async (ctx, { params }) => ({
          status: 200,
          body: (await getPaymentEvents(ctx, params.reference)).map(paymentEventResponse),
        }),
      }),
      route({
        method: 'POST',
        path: '/payments/{reference}/capture',
        summary: 'Capture an amount of an authorized payment',
        idempotent: true,
        params: { reference },
        body: modificationBody,
        success: { status: 200, description: 'The payment after the capture' },
        handler: async (ctx, { params, body, idempotencyKey }) => ({
          status: 200,
          body: modificationResponse(
            await capturePayment(ctx, params.reference, { money: body, field: 'modificationAmount' }, idempotencyKey),
          ),
        }),
      }),
      route({
        method: 'POST',
        path: '/payments/{reference}/refund',
        summary: 'Refund a captured amount',
        idempotent: true,
        params: { reference },
        body: modificationBody,
        success: { status: 200, description: 'The payment after the refund' },
        handler: async (ctx, { params, body, idempotencyKey }) => ({
          status: 200,
          body: modificationResponse(
            await refundPayment(ctx, params.reference, { money: body, field: 'modificationAmount' }, idempotencyKey),
          ),
        }),
      }),
      route({
        method: 'POST',
        path: '/payments/{reference}/cancel',
        summary: 'Cancel what is left of a payment',
        idempotent: true,
        params: { reference },
        success: { status: 200, description: 'The payment after the cancellation' },
        handler: async (ctx, { params, idempotencyKey }) => ({
          status: 200,
          body: modificationResponse(await cancelPayment(ctx, params.reference, idempotencyKey)),
        }),
      }),
      route({
        method: 'POST',
        path: '/test/payments/{reference}/approve',
        summary: 'Approve a payment as a test user (test environment only)',
        idempotent: false,
        params: { reference },
        body: forceApproveBody,
        success: {
          status: 200,
          description: 'The payment was approved (an Express payment is refused with 10020: its user approves on the landing page)',
        },
        handler: async (ctx, { params, body }) => {
          await forceApprovePayment(ctx, params.reference, body);
          return { status: 200 };
        },
      }),
    ],
  );
}
