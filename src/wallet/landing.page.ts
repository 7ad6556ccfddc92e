import type { PageAssets } from '../pages/assets.js';
import { escapeHtml } from '../pages/html.js';
import { approvalForms } from './kit/approval-forms.js';
import { paymentSummary, walletDocument, walletMessage, type WalletMessage } from './kit/wallet-document.js';
import type { LandingPayment } from './landing.service.js';

export { escapeHtml };

/** The ePayment landing page: who is asking, how much, and the two choices a wallet app offers. */
export function landingPage(assets: PageAssets, token: string, payment: LandingPayment | undefined, message?: WalletMessage): string {
  if (!payment) {
    return walletDocument(assets, {
      title: 'Payment not found',
      main: walletMessage({ kind: 'error', text: message?.text ?? 'This payment link is not valid.' }),
    });
  }
  const t = encodeURIComponent(token);
  const choices = payment.awaitsUser
    ? approvalForms({
        approveAction: `/wallet/landing/approve?token=${t}`,
        rejectAction: `/wallet/landing/reject?token=${t}`,
        merchantName: payment.merchantName,
        phoneNumber: payment.customerPhoneNumber,
        profileScope: payment.profileScope,
      })
    : '';
  const back =
    payment.returnUrl && /^https?:\/\//i.test(payment.returnUrl)
      ? `<p class="back" data-back${payment.awaitsUser ? ' hidden' : ''}><a href="${escapeHtml(payment.returnUrl)}">Back to ${escapeHtml(payment.merchantName)}</a></p>`
      : '';
  return walletDocument(assets, {
    title: 'Approve payment',
    main: `${paymentSummary(payment)}${walletMessage(message)}${choices}${back}`,
    live: payment.awaitsUser ? { kind: 'epayment', state: payment.state } : undefined,
  });
}
