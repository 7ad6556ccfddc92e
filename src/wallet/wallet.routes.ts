import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { jsonBody } from '../platform/rest/body.js';
import type { HeaderRules } from '../platform/rest/headers.js';
import type { HttpRequest, HttpResponse, Route } from '../platform/rest/http-types.js';
import { merchantRequest } from '../platform/rest/merchant-request.js';
import { renderEpaymentProblem } from '../platform/rest/problem.js';
import { awaitsUser } from '../payments/payment-expiry.js';
import { Payment } from '../payments/payment.entity.js';
import { checkReference } from '../payments/payment.rules.js';
import { forceApproveBody } from '../payments/payment.schemas.js';
import { landingUrl } from '../payments/payment.view.js';
import { landingPage } from './landing.page.js';
import { approveOnLanding, findLandingPayment, rejectOnLanding } from './landing.service.js';
import { forceApprovePayment } from './force-approve.service.js';
import { qrImage } from './qr-image.js';

const FORCE_APPROVE: HeaderRules = { msn: 'required', idempotencyKey: 'absent', systemHeaderMaxLength: 30 };

/**
 * The simulated wallet user: a landing page and QR images, which need no credentials, only the payment's token;
 * and the ePayment test-only force approve, the merchant playing its wallet user.
 */
export function walletRoutes(services: Services): Route[] {
  const route = (method: string, pattern: string, handler: Route['handler']): Route => ({
    method,
    pattern,
    handler,
    renderError: renderEpaymentProblem,
  });
  return [
    route('POST', '/epayment/v1/test/payments/{reference}/approve', async (request) => {
      const { ctx } = await merchantRequest(services, request, FORCE_APPROVE);
      const command = forceApproveBody.parse(jsonBody(request));
      await forceApprovePayment(ctx, checkReference(request.params.reference!), command);
      return { status: 200 };
    }),
    route('GET', '/wallet/landing', async (request) => {
      const token = tokenOf(request);
      const payment = await findLandingPayment(services, token);
      return html(payment ? 200 : 404, landingPage(token, payment));
    }),
    route('POST', '/wallet/landing/approve', async (request) => {
      const token = tokenOf(request);
      const phoneNumber = new URLSearchParams(request.rawBody.toString('utf8')).get('phoneNumber') ?? '';
      const outcome = await approveOnLanding(services, token, phoneNumber);
      return outcome.ok
        ? html(200, landingPage(token, outcome.payment, { kind: 'ok', text: 'Payment approved.' }))
        : html(outcome.payment ? 400 : 404, landingPage(token, outcome.payment, { kind: 'error', text: outcome.message }));
    }),
    route('POST', '/wallet/landing/reject', async (request) => {
      const token = tokenOf(request);
      const outcome = await rejectOnLanding(services, token);
      return outcome.ok
        ? html(200, landingPage(token, outcome.payment, { kind: 'ok', text: 'Payment rejected.' }))
        : html(outcome.payment ? 400 : 404, landingPage(token, outcome.payment, { kind: 'error', text: outcome.message }));
    }),
    route('GET', '/wallet/qr', async (request) => {
      const token = tokenOf(request);
      const payment = await forkEm(services.orm).findOne(Payment, { approvalToken: token });
      // A one-time payment QR stops working once its payment can no longer be approved.
      if (!payment || payment.userFlow !== 'QR' || !awaitsUser(payment, services.clock.now())) {
        throw new AppError('NOT_FOUND', 'No QR image for this token', [{ name: 'token', reason: 'Unknown or expired' }]);
      }
      const image = await qrImage(
        landingUrl(services.config.publicUrl, token),
        payment.qrFormat === 'IMAGE/PNG' ? 'png' : 'svg',
        payment.qrSize ?? 1024,
      );
      return { status: 200, headers: { 'content-type': image.contentType, 'cache-control': 'no-store' }, body: image.body };
    }),
  ];
}

function tokenOf(request: HttpRequest): string {
  const token = request.query.get('token');
  if (!token) throw AppError.validation([{ name: 'token', reason: 'The token query parameter is required' }]);
  return token;
}

function html(status: number, page: string): HttpResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, body: page };
}
