import type { Services } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { HttpRequest, HttpResponse } from '../platform/rest/http-types.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { pageAssets, type PageAssets } from '../pages/kit/assets.js';
import { pageSecurityHeaders } from '../pages/kit/security-headers.js';
import { liveStateRoute } from '../pages/kit/live-state.route.js';
import { ownPagePost } from '../pages/kit/same-origin.js';
import { CHECKOUT_PAGE_STATE_PATH, readCheckoutPageLiveState } from './checkout-page.live-state.js';
import { cancelCheckout, findCheckoutPage, offerShipping, payCheckout, type BuyerOutcome } from './checkout-buyer.service.js';
import { formFromBody } from './checkout-buyer.rules.js';
import { checkoutPageHtml } from './checkout.page.js';

/** The buyer's checkout page (`checkoutFrontendUrl`): no credentials but the session's token. */
export function checkoutPages(services: Services, assets: PageAssets = pageAssets): PageRoute[] {
  const html = (request: HttpRequest, status: number, page: string): HttpResponse => ({
    status,
    headers: { ...pageSecurityHeaders(request), 'cache-control': 'no-store' },
    body: page,
  });
  const answer = (request: HttpRequest, outcome: BuyerOutcome): HttpResponse => {
    if (outcome.ok) {
      return html(
        request,
        200,
        checkoutPageHtml(assets, outcome.page, outcome.message ? { kind: 'ok', text: outcome.message } : undefined),
      );
    }
    const status = outcome.page ? 400 : 404;
    return html(
      request,
      status,
      checkoutPageHtml(
        assets,
        outcome.page,
        { kind: 'error', text: outcome.message },
        { form: outcome.form, fieldErrors: outcome.fieldErrors },
      ),
    );
  };
  /** Checkout forms accept posts from the checkout page itself only (a cross-site form post is refused). */
  const post = (pattern: string, handler: (request: HttpRequest, token: string) => Promise<HttpResponse>): PageRoute =>
    ownPagePost(
      services.config.publicUrl,
      pattern,
      () => checkoutPageHtml(assets, undefined, { kind: 'error', text: 'This form may only be sent from the checkout page.' }),
      (request) => handler(request, tokenOf(request)),
    );
  const formOf = (request: HttpRequest) => formFromBody(new URLSearchParams(request.rawBody.toString('utf8')));
  return [
    {
      method: 'GET',
      pattern: '/checkout/page',
      run: async (request) => {
        const page = await findCheckoutPage(services, tokenOf(request));
        return html(request, page ? 200 : 404, checkoutPageHtml(assets, page));
      },
    },
    post('/checkout/page/shipping', async (request, token) => {
      const outcome = await offerShipping(services, token, formOf(request));
      if (outcome.ok) return html(request, 200, checkoutPageHtml(assets, outcome.page, undefined, { form: formOf(request) }));
      return answer(request, { ...outcome, form: outcome.form ?? formOf(request) });
    }),
    post('/checkout/page/pay', async (request, token) => answer(request, await payCheckout(services, token, formOf(request)))),
    post('/checkout/page/cancel', async (request, token) => answer(request, await cancelCheckout(services, token))),
    liveStateRoute(services, assets, CHECKOUT_PAGE_STATE_PATH, (token) => readCheckoutPageLiveState(services, token)),
  ];
}

function tokenOf(request: HttpRequest): string {
  const token = request.query.get('token');
  if (!token) throw AppError.validation([{ name: 'token', reason: 'The token query parameter is required' }]);
  return token;
}
