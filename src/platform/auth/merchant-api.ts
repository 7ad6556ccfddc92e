import type { HeaderRules } from './header-rules.js';
import type { AuthRule } from './request-context.js';

/**
 * The merchant-facing APIs: ePayment, webhooks and both faces of the graph. A merchant acts for its own sales
 * units, a partner for those connected to it; a PSP or a checkout client has interfaces of its own.
 */
export const MERCHANT_API_AUTH: AuthRule = { method: 'bearer', accepts: ['merchant', 'partner'] };

/** ePayment and webhooks (FACTS §1, §2): the MSN names the sales unit; system headers up to 30 characters. */
export const MERCHANT_API_HEADERS: HeaderRules = { msn: 'required', systemHeaders: { presence: 'optional', maxLength: 30 } };

/**
 * Both faces of the graph: a merchant or partner for its sales units, a PSP for its merchants' sales units (naming
 * the MSN like a partner; a `Psp-Id` header, when sent, must be its own). PSP-only fields check the kind themselves.
 * A request acts as the principal as a whole; the MSN, when sent, narrows it to that sales unit (its merchant's,
 * for lists of units), and a field that needs one sales unit asks for it (tenancy-scope.ts). The operator's client
 * may use only the fields marked `@operatorOnly`, and only it may use them (principal-fields.ts).
 */
export const GRAPH_API_AUTH: AuthRule = { method: 'bearer', accepts: ['merchant', 'partner', 'psp', 'operator'], scope: 'principal' };

/** The graph's headers: the MSN is optional (asked for by the fields that need one sales unit). */
export const GRAPH_API_HEADERS: HeaderRules = { msn: 'optional', systemHeaders: { presence: 'optional', maxLength: 30 } };
