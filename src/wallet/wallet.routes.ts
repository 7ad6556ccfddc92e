import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { epaymentProblem } from '../platform/rest/error-formats/epayment-problem.js';
import type { HttpResponse } from '../platform/rest/http-types.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { Payment } from '../payments/payment.entity.js';
import { landingUrl } from '../payments/payment.view.js';
import { landingPage } from './landing.page.js';
import { approveOnLanding, findLandingPayment, rejectOnLanding } from './landing.service.js';
import { qrImage } from './qr-image.js';
import { awaitsUser } from '../payments/payment-expiry.js';

/**
 * The simulated wallet user: a landing page and QR images. They need no credentials, only the payment's token,
 * and read no headers: a browser sends them.
 */
export function walletRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    { name: 'Wallet user (test)', prefix: '/wallet', errorFormat: epaymentProblem, auth: 'public' },
    (route) => [
      route({
        method: 'GET',
        path: '/landing',
        summary: 'The landing page of a payment',
        idempotent: false,
        success: { status: 200, description: 'An HTML page' },
        handler: async (_ctx, { query }) => {
          const token = tokenOf(query);
          const payment = await findLandingPayment(services, token);
          return html(payment ? 200 : 404, landingPage(token, payment));
        },
      }),
      route({
        method: 'POST',
        path: '/landing/approve',
        summary: 'Approve the payment as a test user (form field phoneNumber)',
        idempotent: false,
        success: { status: 200, description: 'An HTML page' },
        handler: async (_ctx, { query, rawBody }) => {
          const token = tokenOf(query);
          const phoneNumber = new URLSearchParams(rawBody.toString('utf8')).get('phoneNumber') ?? '';
          const outcome = await approveOnLanding(services, token, phoneNumber);
          return outcome.ok
            ? html(200, landingPage(token, outcome.payment, { kind: 'ok', text: 'Payment approved.' }))
            : html(outcome.payment ? 400 : 404, landingPage(token, outcome.payment, { kind: 'error', text: outcome.message }));
        },
      }),
      route({
        method: 'POST',
        path: '/landing/reject',
        summary: 'Reject the payment',
        idempotent: false,
        success: { status: 200, description: 'An HTML page' },
        handler: async (_ctx, { query }) => {
          const token = tokenOf(query);
          const outcome = await rejectOnLanding(services, token);
          return outcome.ok
            ? html(200, landingPage(token, outcome.payment, { kind: 'ok', text: 'Payment rejected.' }))
            : html(outcome.payment ? 400 : 404, landingPage(token, outcome.payment, { kind: 'error', text: outcome.message }));
        },
      }),
      route({
        method: 'GET',
        path: '/qr',
        summary: 'The QR image of a payment',
        idempotent: false,
        success: { status: 200, description: 'An SVG or PNG image' },
        handler: async (_ctx, { query }) => {
          const token = tokenOf(query);
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
        },
      }),
    ],
  );
}

function tokenOf(query: URLSearchParams): string {
  const token = query.get('token');
  if (!token) throw AppError.validation([{ name: 'token', reason: 'The token query parameter is required' }]);
  return token;
}

function html(status: number, page: string): HttpResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, body: page };
}
