import type { PageAssets } from '../pages/kit/assets.js';
import { escapeHtml } from '../pages/kit/html.js';
import { liveStatePage } from '../pages/kit/live-state.route.js';
import { outcomeHeading, paymentSummary, walletDocument, walletMessage } from '../pages/kit/wallet-document.js';
import { LANDING_STATE_PATH } from './landing.page.js';
import type { LandingPayment } from './landing.service.js';

/** The production pages' brand: the platform's own, never the test wallet's. */
export const PLATFORM_BRAND = 'Paygraph';

/**
 * The landing page a payer opens in production (the payment's `redirectUrl`): the shop, the amount and what for, an
 * ask to approve in the wallet app, and for a payer at a computer a QR code of this page's address for the phone
 * (`qrSvg`). No test user, no approve button: the approval happens in the app, whose client approves through the graph.
 * The shown state follows the payment live, as on every wallet page; once decided, the way back to the shop shows.
 */
export function productionLandingPage(assets: PageAssets, payment: LandingPayment | undefined, qrSvg: string): string {
  if (!payment) {
    return walletDocument(assets, {
      title: 'Payment not found',
      brand: PLATFORM_BRAND,
      main: walletMessage({ kind: 'error', text: 'This payment link is not valid.' }),
    });
  }
  const ask = payment.awaitsUser
    ? `<section class="in-app" data-awaits-user aria-labelledby="in-app">
  <h2 id="in-app">Open your wallet app</h2>
  <p data-testid="approve-in-app">Approve the payment to ${escapeHtml(payment.merchantName)} in the app on your phone: it waits for you there.</p>
  <figure class="qr" data-testid="qr">
    <img src="data:image/svg+xml;base64,${Buffer.from(qrSvg).toString('base64')}" width="192" height="192" alt="QR code of this payment">
    <figcaption>On a computer? Scan this code with your phone to open the payment in the app.</figcaption>
  </figure>
</section>`
    : '';
  const back =
    payment.returnUrl && /^https?:\/\//i.test(payment.returnUrl)
      ? `<p class="back" data-back${payment.awaitsUser ? ' hidden' : ''}><a href="${escapeHtml(payment.returnUrl)}">Back to ${escapeHtml(payment.merchantName)}</a></p>`
      : '';
  return walletDocument(assets, {
    title: outcomeHeading(payment.state, 'Approve in the app'),
    brand: PLATFORM_BRAND,
    main: `${paymentSummary(payment)}${ask}${back}`,
    live: liveStatePage(LANDING_STATE_PATH, payment),
  });
}
