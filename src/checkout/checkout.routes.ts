import type { HeaderRules } from '../platform/auth/header-rules.js';
import type { AuthRule } from '../platform/auth/request-context.js';
import type { Services } from '../platform/context.js';
import { checkoutProblem } from './checkout-problem.js';
import type { ParamRule } from '../platform/rest/path-params.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { createSessionBody } from './checkout-session.schemas.js';
import { createCheckoutSession, getCheckoutSession } from './checkout-session.service.js';
import { expireCheckoutSession, updateCheckoutSession } from './checkout-session-merchant.service.js';
import { updateSessionBody } from './checkout-session-update.schemas.js';

/** FACTS §8: `client_id`, `client_secret`, the subscription key and the MSN on every request; no bearer token. */
export const CHECKOUT_AUTH = { method: 'clientCredentials', accepts: ['checkoutClient'] } satisfies AuthRule;
export const CHECKOUT_HEADERS: HeaderRules = {
  msn: 'required',
  systemHeaders: { presence: 'optional', maxLength: 30 },
  clientCredentials: 'required',
};

/** Any text the merchant might have used as a reference; a malformed one is simply not a known session (404). */
const reference: ParamRule = {
  accepts: (value) => value.length >= 1 && value.length <= 200,
  reason: 'Must be 1 to 200 characters',
  jsonSchema: { type: 'string', minLength: 1, maxLength: 200 },
};

/** The checkout API v3 (FACTS §8): thin translations between HTTP and the session service. */
export function checkoutRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    { name: 'Checkout API', prefix: '/checkout/v3', errorFormat: checkoutProblem, auth: CHECKOUT_AUTH, headers: CHECKOUT_HEADERS },
    (route) => [
      route({
        method: 'POST',
        path: '/session',
        summary: 'Create a Checkout session',
        idempotent: false,
        body: createSessionBody,
        success: { status: 200, description: 'The session: {token, checkoutFrontendUrl, pollingUrl}' },
        handler: async (ctx, { body }) => {
          const { token, checkoutFrontendUrl, pollingUrl } = await createCheckoutSession(ctx, body);
          return { status: 200, body: { token, checkoutFrontendUrl, pollingUrl } };
        },
      }),
      route({
        method: 'GET',
        path: '/session/{reference}',
        summary: 'Get session info',
        idempotent: false,
        params: { reference },
        success: { status: 200, description: 'The session information (SessionResponse)' },
        handler: async (ctx, { params }) => ({ status: 200, body: await getCheckoutSession(ctx, params.reference) }),
      }),
      // Update and expire are in no public definition we hold; the WooCommerce plugin (6.0.5) calls both and reads
      // any 2xx as done, so they answer the session information as GET does.
      route({
        method: 'PATCH',
        path: '/session/{reference}',
        summary: 'Update a session the buyer has not paid yet',
        idempotent: false,
        params: { reference },
        body: updateSessionBody,
        success: { status: 200, description: 'The session information (SessionResponse) after the change' },
        handler: async (ctx, { params, body }) => ({ status: 200, body: (await updateCheckoutSession(ctx, params.reference, body)).info }),
      }),
      route({
        method: 'POST',
        path: '/session/{reference}/expire',
        summary: 'Expire an open session',
        idempotent: false,
        params: { reference },
        success: { status: 200, description: 'The session information (SessionResponse), SessionExpired' },
        handler: async (ctx, { params }) => ({ status: 200, body: (await expireCheckoutSession(ctx, params.reference)).info }),
      }),
    ],
  );
}
