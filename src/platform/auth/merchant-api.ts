import type { HeaderRules } from './header-rules.js';
import type { AuthRule } from './request-context.js';

/**
 * The merchant-facing APIs: ePayment, webhooks and both faces of the graph. A merchant acts for its own sales
 * units, a partner for those connected to it; a PSP or a checkout client has interfaces of its own.
 */
export const MERCHANT_API_AUTH = { method: 'bearer', accepts: ['merchant', 'partner'] } satisfies AuthRule;

/** ePayment and webhooks (FACTS §1, §2): the MSN names the sales unit; system headers up to 30 characters. */
export const MERCHANT_API_HEADERS: HeaderRules = { msn: 'required', systemHeaders: { presence: 'optional', maxLength: 30 } };

/**
 * Both faces of the graph: a merchant or partner for its sales units, a PSP for its merchants' sales units (naming
 * the MSN like a partner; a `Psp-Id` header, when sent, must be its own). Which root fields each kind may select is
 * declared in the SDL (`@principals`) and checked by the graph's admission.
 * A request acts as the principal as a whole; the MSN, when sent, narrows it to that sales unit (its merchant's,
 * for lists of units), and a field that needs one sales unit asks for it (tenancy-scope.ts). The operator's client
 * may use only the fields declared `@principals(kinds: [OPERATOR])`, and only it may use them (principal-fields.ts);
 * a wallet app's client likewise only those declared `@principals(kinds: [WALLET])`.
 */
export const GRAPH_API_AUTH = {
  method: 'bearer',
  accepts: ['merchant', 'partner', 'psp', 'operator', 'wallet'],
  scope: 'principal',
} satisfies AuthRule;

/** The graph's headers: the MSN is optional (asked for by the fields that need one sales unit). */
export const GRAPH_API_HEADERS: HeaderRules = { msn: 'optional', systemHeaders: { presence: 'optional', maxLength: 30 } };
