import type { PageAssets } from '../pages/kit/assets.js';
import { escapeHtml } from '../pages/kit/html.js';
import type { IssuedUserToken } from '../user-profiles/user-token.js';
import { approvalForms } from '../pages/kit/approval-forms.js';
import { sharedScopes } from '../pages/kit/consent-scopes.js';
import { liveStatePage } from '../pages/kit/live-state.route.js';
import { outcomeHeading, paymentSummary, walletDocument, walletMessage, type WalletMessage } from '../pages/kit/wallet-document.js';
import type { LandingPayment } from './landing.service.js';
import { expressAddressSection, expressChosen, expressShippingFields } from './express-landing.page.js';

export { escapeHtml };

/** Where the landing page's script asks for the payment's state (wallet.routes.ts serves it). */
export const LANDING_STATE_PATH = '/wallet/landing/state';

/**
 * The ePayment landing page: who is asking, how much, and the two choices a wallet app offers. `userToken`: the
 * approval just shared the user's profile, and the link back to the merchant hands over the user's token.
 */
export function landingPage(
  assets: PageAssets,
  token: string,
  payment: LandingPayment | undefined,
  message?: WalletMessage,
  userToken?: IssuedUserToken,
): string {
  if (!payment) {
    return walletDocument(assets, {
      title: 'Payment not found',
      main: walletMessage({ kind: 'error', text: message?.text ?? 'This payment link is not valid.' }),
    });
  }
  const t = encodeURIComponent(token);
  const express = payment.express;
  const choices = payment.awaitsUser
    ? approvalForms({
        approveAction: `/wallet/landing/approve?token=${t}`,
        rejectAction: `/wallet/landing/reject?token=${t}`,
        merchantName: payment.merchantName,
        phoneNumber: express?.user?.phoneNumber ?? payment.customerPhoneNumber,
        profileScope: payment.profileScope,
        extra: express ? expressShippingFields(express, payment.currency) : undefined,
        approvable: !express || Boolean(express.user),
      })
    : '';
  const delivery = express
    ? expressAddressSection(token, express)
    : payment.shippingDetails
      ? expressChosen(payment.shippingDetails, payment.currency)
      : '';
  const back =
    payment.returnUrl && /^https?:\/\//i.test(payment.returnUrl)
      ? `<p class="back" data-back${payment.awaitsUser ? ' hidden' : ''}><a href="${escapeHtml(withUserToken(payment.returnUrl, userToken))}">Back to ${escapeHtml(payment.merchantName)}</a></p>`
      : '';
  const shared = payment.sharedScope ? sharedScopes(payment.merchantName, payment.sharedScope) : '';
  return walletDocument(assets, {
    title: outcomeHeading(payment.state, 'Approve payment'),
    main: `${paymentSummary(payment)}${walletMessage(message)}${delivery}${shared}${choices}${back}`,
    live: liveStatePage(LANDING_STATE_PATH, payment),
  });
}

/**
 * The merchant's `returnUrl` carrying the user's access token the way the OAuth 2.0 / OpenID Connect browser flows
 * return one (`#access_token=…&token_type=Bearer&expires_in=…&scope=…`, RFC 6749 §4.2.2): in the fragment, which
 * the browser sends to no server and puts in no Referer, so only the merchant's page reads it and passes it to its
 * backend. This is the one URL the pages build with a credential in it, because the flow hands the token over so.
 */
export function withUserToken(returnUrl: string, userToken: IssuedUserToken | undefined): string {
  if (!userToken) return returnUrl;
  const fragment = new URLSearchParams({
    access_token: userToken.accessToken,
    token_type: 'Bearer',
    expires_in: String(userToken.expiresIn),
    scope: userToken.scope,
  });
  return `${returnUrl.split('#')[0]}#${fragment.toString()}`;
}
