import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpRequest, HttpResponse } from '../platform/rest/http-types.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { Payment } from '../payments/payment.entity.js';
import { landingUrl } from '../payments/payment.view.js';
import { pageAssets, type PageAssets } from '../pages/kit/assets.js';
import { pageSecurityHeaders } from '../pages/kit/security-headers.js';
import { liveStateRoute } from '../pages/kit/live-state.route.js';
import { ownPagePost } from '../pages/kit/same-origin.js';
import { walletRefusal } from '../pages/kit/wallet-document.js';
import { LANDING_STATE_PATH, landingPage } from './landing.page.js';
import { approveOnLanding, findLandingPayment, readLandingLiveState, rejectOnLanding, type ExpressInput } from './landing.service.js';
import { productionLandingPage } from './production-landing.page.js';
import { qrImage } from './qr-image.js';
import { awaitsUser } from '../payments/payment-expiry.js';

/**
 * The landing page (in production the platform's own, which asks the payer to approve in the app; in the test
 * environment the simulated wallet user's) and QR images. They need no credentials, only the payment's token.
 */
export function walletPages(services: Services, assets: PageAssets = pageAssets): PageRoute[] {
  const route = (method: PageRoute['method'], pattern: string, run: PageRoute['run']): PageRoute => ({ method, pattern, run });
  const html = (request: HttpRequest, status: number, page: string): HttpResponse => ({
    status,
    headers: pageSecurityHeaders(request),
    body: page,
  });
  /** Wallet forms accept posts from the wallet's own pages only (a cross-site form post is refused). */
  const post = (pattern: string, handler: PageRoute['run']): PageRoute =>
    ownPagePost(services.config.publicUrl, pattern, () => walletRefusal(assets), handler);
  const routes: PageRoute[] = [
    route('GET', '/wallet/landing', async (request) => {
      const token = tokenOf(request);
      const payment = await findLandingPayment(services, token, expressInputOf(request.query));
      // In production the payer approves in the wallet app: the platform's own page, never the test wallet.
      if (services.config.env !== 'test') {
        const qr = payment?.awaitsUser ? await qrImage(landingUrl(services.config.publicUrl, token), 'svg') : undefined;
        return html(request, payment ? 200 : 404, productionLandingPage(assets, payment, String(qr?.body ?? '')));
      }
      return html(request, payment ? 200 : 404, landingPage(assets, token, payment));
    }),
    post('/wallet/landing/approve', async (request) => {
      const token = tokenOf(request);
      const form = formOf(request);
      const outcome = await approveOnLanding(
        services,
        token,
        form.get('phoneNumber') ?? '',
        form.get('consent') === 'yes',
        'page',
        expressInputOf(form),
      );
      return outcome.ok
        ? html(request, 200, landingPage(assets, token, outcome.payment, undefined, outcome.userToken))
        : html(request, outcome.payment ? 400 : 404, landingPage(assets, token, outcome.payment, { kind: 'error', text: outcome.message }));
    }),
    post('/wallet/landing/reject', async (request) => {
      const token = tokenOf(request);
      const outcome = await rejectOnLanding(services, token);
      // The heading, status and sentence say what happened: no message repeats them.
      return outcome.ok
        ? html(request, 200, landingPage(assets, token, outcome.payment))
        : html(request, outcome.payment ? 400 : 404, landingPage(assets, token, outcome.payment, { kind: 'error', text: outcome.message }));
    }),
    liveStateRoute(services, assets, LANDING_STATE_PATH, (token) => readLandingLiveState(services, token)),
    route('GET', '/wallet/qr', async (request) => {
      const token = tokenOf(request);
      const payment = await forkEm(services.orm).findOne(Payment, { approvalToken: token });
      // A one-time payment QR stops working once its payment can no longer be approved.
      if (!payment || payment.userFlow !== 'QR' || !awaitsUser(payment, services.testClocks.of(payment.msn).now())) {
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
  // The test wallet's forms: a person plays the wallet user. Production has no simulated user (its payers approve in
  // their wallet app, whose client approves through the graph), so it serves no such form.
  return services.config.env === 'test' ? routes : routes.filter((r) => !TEST_WALLET_FORMS.has(r.pattern));
}

const TEST_WALLET_FORMS = new Set(['/wallet/landing/approve', '/wallet/landing/reject']);

function tokenOf(request: HttpRequest): string {
  const token = request.query.get('token');
  if (!token) throw AppError.validation([{ name: 'token', reason: 'The token query parameter is required' }]);
  return token;
}

/** What an Express landing page's forms say (the query of its GET, the approve form's body): who, where, which option. */
function expressInputOf(fields: URLSearchParams): ExpressInput {
  const text = (name: string) => fields.get(name) ?? undefined;
  return {
    phoneNumber: text('phoneNumber'),
    choice: {
      pick: text('address') ?? '0',
      typed: {
        addressLine1: text('addressLine1'),
        addressLine2: text('addressLine2'),
        city: text('city'),
        postCode: text('postCode'),
        country: text('country'),
      },
    },
    optionId: text('shippingOptionId'),
  };
}

function formOf(request: HttpRequest): URLSearchParams {
  return new URLSearchParams(request.rawBody.toString('utf8'));
}
