import type {
  Currency,
  Resolvers,
  WalletErrorCode,
  WalletPayment as WalletPaymentType,
  WalletUserError,
} from '../src/generated/graphql.js';
import type { RequestContext } from '../src/platform/context.js';
import { cursorsOf, keysetPage, mapNodes, oldestFirst } from '../src/platform/graph/relay.js';
import { normalizePhoneNumber } from '../src/user-profiles/phone-number.js';
import { forbiddenFieldsError } from '../src/platform/graph/principal-fields.js';
import {
  pendingWalletPayments,
  walletApproves,
  walletPaymentByToken,
  walletRejects,
  type WalletOutcome,
  type WalletPayment,
  type WalletRefusal,
} from '../src/wallet/wallet-client.service.js';

/** What the wallet app is told when it may not act, by refusal: in the app's words, never the test wallet's. */
const REFUSALS: Record<WalletRefusal, { code: WalletErrorCode; field: string | null; message: string }> = {
  NOT_A_PHONE_NUMBER: { code: 'NOT_A_PHONE_NUMBER', field: 'phoneNumber', message: 'Not a phone number' },
  NO_SUCH_PAYMENT: { code: 'NO_SUCH_PAYMENT', field: 'token', message: 'No payment has this token' },
  OTHER_CUSTOMER: { code: 'OTHER_CUSTOMER', field: 'phoneNumber', message: 'The payment was made for another customer' },
  NOT_AWAITING_USER: { code: 'NOT_AWAITING_USER', field: 'token', message: 'The payment no longer waits for its user' },
  DECLINED: { code: 'DECLINED', field: null, message: 'The approval was declined' },
  UNDER_MINIMUM_AGE: { code: 'UNDER_MINIMUM_AGE', field: 'phoneNumber', message: 'The user is younger than the payment allows' },
  CONSENT_REQUIRED: {
    code: 'CONSENT_REQUIRED',
    field: 'consentedScopes',
    message: 'The payment asks the user to share profile information: consent to every requested scope',
  },
  SHIPPING_NOT_CHOSEN: { code: 'SHIPPING_NOT_CHOSEN', field: 'token', message: 'Choose an address and a shipping option' },
  SHIPPING_UNAVAILABLE: { code: 'SHIPPING_UNAVAILABLE', field: 'token', message: "The shop cannot ship to the user's address" },
  TOTAL_TOO_HIGH: { code: 'TOTAL_TOO_HIGH', field: 'token', message: 'The total with shipping is more than a payment may be' },
};

/**
 * The wallet app's client acts for its user. The request front refuses these fields to every other principal before
 * any resolver runs; this check also covers a root fragment that hides one of them.
 */
function walletCall(request: RequestContext, field: string): void {
  if (request.principal.kind !== 'wallet') throw forbiddenFieldsError([field]);
}

function shown(payment: WalletPayment): WalletPaymentType {
  return {
    ...payment,
    amount: { value: payment.amount, currency: payment.currency as Currency },
    expiresAt: payment.expiresAt.toISOString(),
  };
}

function payload(outcome: WalletOutcome): { payment: WalletPaymentType | null; userErrors: WalletUserError[] } {
  if (outcome.ok) return { payment: shown(outcome.payment), userErrors: [] };
  return { payment: outcome.payment ? shown(outcome.payment) : null, userErrors: [REFUSALS[outcome.refusal]] };
}

export const walletResolvers: Resolvers = {
  Query: {
    walletPendingPayments: async (_, { phoneNumber, first, after }, { services, request }) => {
      walletCall(request, 'walletPendingPayments');
      // Cursors are bound to the user's list: one phone number's cursor does not page another's.
      const page = keysetPage(
        { first, after },
        oldestFirst<{ createdAt: Date; id: string }>(),
        20,
        cursorsOf('Query.walletPendingPayments', request, { filter: { phoneNumber: normalizePhoneNumber(phoneNumber) ?? phoneNumber } }),
      );
      return mapNodes(page.connection(await pendingWalletPayments(services, request.em, phoneNumber, page)), shown);
    },
    walletPayment: async (_, { token }, { services, request }) => {
      walletCall(request, 'walletPayment');
      const payment = await walletPaymentByToken(services, request.em, token);
      return payment ? shown(payment) : null;
    },
  },
  Mutation: {
    walletApprovePayment: async (_, { input }, { services, request }) => {
      walletCall(request, 'walletApprovePayment');
      return payload(
        await walletApproves(services, request.em, {
          phoneNumber: input.phoneNumber,
          token: input.token,
          consentedScopes: input.consentedScopes ?? [],
        }),
      );
    },
    walletRejectPayment: async (_, { input }, { services, request }) => {
      walletCall(request, 'walletRejectPayment');
      return payload(await walletRejects(services, request.em, { phoneNumber: input.phoneNumber, token: input.token }));
    },
  },
};
