import type { Services } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpRequest, HttpResponse } from '../platform/rest/http-types.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { pageAssets, type PageAssets } from '../pages/kit/assets.js';
import { escapeHtml } from '../pages/kit/html.js';
import { pageSecurityHeaders } from '../pages/kit/security-headers.js';
import { approvalForms } from '../pages/kit/approval-forms.js';
import { liveStatePage, liveStateRoute } from '../pages/kit/live-state.route.js';
import { paymentOutcome } from '../pages/kit/payment-outcome.js';
import { ownPagePost } from '../pages/kit/same-origin.js';
import {
  outcomeHeading,
  paymentSummary,
  walletDocument,
  walletMessage,
  walletRefusal,
  type WalletMessage,
} from '../pages/kit/wallet-document.js';
import { actOnPspLanding, findPspLandingPayment, readPspLandingLiveState, type PspLandingPayment } from './psp-approval.service.js';

/** Where the PSP landing page's script asks for the payment's state. */
const PSP_LANDING_STATE_PATH = '/wallet/psp/state';

/** The PSP landing page (the `vippsRedirectUrl`): a person plays the wallet user and approves or cancels. */
export function pspLandingPage(assets: PageAssets, token: string, payment: PspLandingPayment | undefined, message?: WalletMessage): string {
  if (!payment) {
    return walletDocument(assets, {
      title: 'Payment not found',
      main: walletMessage({ kind: 'error', text: message?.text ?? 'This payment link is not valid.' }),
    });
  }
  const t = encodeURIComponent(token);
  const choices = payment.awaitsUser
    ? approvalForms({
        approveAction: `/wallet/psp/approve?token=${t}`,
        rejectAction: `/wallet/psp/cancel?token=${t}`,
        merchantName: payment.merchantName,
        phoneNumber: payment.customerPhoneNumber,
        profileScope: null,
      })
    : '';
  // The card is named while the payment may still go through; a payment that stopped took nothing from it.
  const card =
    paymentOutcome(payment.state).tone === 'failure'
      ? ''
      : `<p class="hint" data-testid="card-note" data-unless-failure>Payment method: your stored card${payment.subscription ? '; it is kept for later payments to this merchant' : ''}.</p>`;
  // Rendered hidden while the user may still act, for the page's script to show once the payment is decided.
  const back =
    payment.pspRedirectUrl && /^https?:\/\//i.test(payment.pspRedirectUrl)
      ? `<p class="back" data-back${payment.awaitsUser ? ' hidden' : ''}><a href="${escapeHtml(payment.pspRedirectUrl)}">Back to ${escapeHtml(payment.merchantName)}</a></p>`
      : '';
  return walletDocument(assets, {
    title: outcomeHeading(payment.state, 'Approve card payment'),
    main: `${paymentSummary(payment)}${card}${walletMessage(message)}${choices}${back}`,
    live: liveStatePage(PSP_LANDING_STATE_PATH, payment),
  });
}

export function pspLandingPages(services: Services, assets: PageAssets = pageAssets): PageRoute[] {
  const html = (request: HttpRequest, status: number, page: string): HttpResponse => ({
    status,
    headers: pageSecurityHeaders(request),
    body: page,
  });
  const post = (pattern: string, act: (token: string, form: URLSearchParams) => ReturnType<typeof actOnPspLanding>): PageRoute =>
    ownPagePost(
      services.config.publicUrl,
      pattern,
      () => walletRefusal(assets),
      async (request) => {
        const token = tokenOf(request);
        const outcome = await act(token, new URLSearchParams(request.rawBody.toString('utf8')));
        // The heading, status and sentence say what happened: no message repeats them.
        return outcome.ok
          ? html(request, 200, pspLandingPage(assets, token, outcome.payment))
          : html(
              request,
              outcome.payment ? 400 : 404,
              pspLandingPage(assets, token, outcome.payment, { kind: 'error', text: outcome.message }),
            );
      },
    );
  return [
    {
      method: 'GET',
      pattern: '/wallet/psp',
      run: async (request) => {
        const token = tokenOf(request);
        const payment = await findPspLandingPayment(services, token);
        return html(request, payment ? 200 : 404, pspLandingPage(assets, token, payment));
      },
    },
    post('/wallet/psp/approve', (token, form) => actOnPspLanding(services, token, { approve: form.get('phoneNumber') ?? '' })),
    post('/wallet/psp/cancel', (token) => actOnPspLanding(services, token, { cancel: true })),
    liveStateRoute(services, assets, PSP_LANDING_STATE_PATH, (token) => readPspLandingLiveState(services, token)),
  ];
}

function tokenOf(request: HttpRequest): string {
  const token = request.query.get('token');
  if (!token) throw AppError.validation([{ name: 'token', reason: 'The token query parameter is required' }]);
  return token;
}
