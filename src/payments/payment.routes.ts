import type { Services } from '../platform/context.js';
import { jsonBody } from '../platform/rest/body.js';
import type { HeaderRules } from '../platform/rest/headers.js';
import type { HttpRequest, Route } from '../platform/rest/http-types.js';
import { merchantRequest } from '../platform/rest/merchant-request.js';
import { renderEpaymentProblem } from '../platform/rest/problem.js';
import { cancelPayment, capturePayment, refundPayment } from './payment-modification.service.js';
import { createPaymentResponse, getPaymentResponse, modificationResponse, paymentEventResponse } from './payment.presenter.js';
import { checkReference, refuseCreatePayment } from './payment.rules.js';
import { createPaymentBody, modificationBody } from './payment.schemas.js';
import { createPayment, getPayment, getPaymentEvents } from './payment.service.js';

const READ: HeaderRules = { msn: 'required', idempotencyKey: 'absent', systemHeaderMaxLength: 30 };
const MODIFY: HeaderRules = { msn: 'required', idempotencyKey: 'required', systemHeaderMaxLength: 30 };

/** The ePayment API v1 (FACTS §1.1): thin translations between HTTP and the payment services. */
export function paymentRoutes(services: Services): Route[] {
  const route = (method: string, pattern: string, handler: Route['handler']): Route => ({
    method,
    pattern,
    handler,
    renderError: renderEpaymentProblem,
  });
  return [
    route('POST', '/epayment/v1/payments', async (request) => {
      const { ctx, headers } = await merchantRequest(services, request, MODIFY);
      const command = createPaymentBody.parse(jsonBody(request));
      refuseCreatePayment(command, { env: services.config.env, now: ctx.clock.now() });
      const view = await createPayment(ctx, command, headers.idempotencyKey!);
      return { status: 201, body: createPaymentResponse(view) };
    }),
    route('GET', '/epayment/v1/payments/{reference}', async (request) => {
      const { ctx } = await merchantRequest(services, request, READ);
      return { status: 200, body: getPaymentResponse(await getPayment(ctx, reference(request))) };
    }),
    route('GET', '/epayment/v1/payments/{reference}/events', async (request) => {
      const { ctx } = await merchantRequest(services, request, READ);
      return { status: 200, body: (await getPaymentEvents(ctx, reference(request))).map(paymentEventResponse) };
    }),
    route('POST', '/epayment/v1/payments/{reference}/capture', async (request) => {
      const { ctx, headers } = await merchantRequest(services, request, MODIFY);
      const view = await capturePayment(ctx, reference(request), modificationBody.parse(jsonBody(request)), headers.idempotencyKey!);
      return { status: 200, body: modificationResponse(view) };
    }),
    route('POST', '/epayment/v1/payments/{reference}/refund', async (request) => {
      const { ctx, headers } = await merchantRequest(services, request, MODIFY);
      const view = await refundPayment(ctx, reference(request), modificationBody.parse(jsonBody(request)), headers.idempotencyKey!);
      return { status: 200, body: modificationResponse(view) };
    }),
    route('POST', '/epayment/v1/payments/{reference}/cancel', async (request) => {
      const { ctx, headers } = await merchantRequest(services, request, MODIFY);
      const view = await cancelPayment(ctx, reference(request), headers.idempotencyKey!);
      return { status: 200, body: modificationResponse(view) };
    }),
  ];
}

function reference(request: HttpRequest): string {
  return checkReference(request.params.reference!);
}
