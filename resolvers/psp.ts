import type { PspErrorCode, Resolvers } from '../src/generated/graphql.js';
import { cursorsOf, keysetPage, newestFirst, toGlobalId } from '../src/platform/graph/relay.js';
import type { CreatedKey } from '../src/platform/paging/keyset.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import { initiateBody, updateStatusBody } from '../src/psp/psp-payment.schemas.js';
import {
  findPspPaymentByTransactionId,
  listPspPayments,
  pspPaymentByIdLoader,
  pspPaymentLogByPaymentIdLoader,
} from '../src/psp/psp-payment.queries.js';
import { initiatePspPayment, pspLandingUrl, pspOf, transactionSummary } from '../src/psp/psp-payment.service.js';
import { subscribeToPspPaymentChanges } from '../src/psp/psp-payment.subscription.js';
import { pspSalesUnitsByMsnLoader } from '../src/psp-signup/signup.queries.js';
import { createMerchantBody, updateMerchantBody } from '../src/psp-signup/signup.schemas.js';
import { createSignupMerchant, getSignupMerchant, listSignupMerchants, updateSignupMerchant } from '../src/psp-signup/signup.service.js';
import { queueStatusUpdates } from '../src/psp/psp-status-update.service.js';

const PSP_ERROR_CODES = userErrorCodes<PspErrorCode>({
  VALIDATION_FAILED: true,
  PSP_MERCHANT_NOT_ACTIVE: true,
  PSP_TRANSACTION_EXISTS: true,
  PSP_ORDER_EXISTS: true,
  PSP_SKIP_LANDING_PAGE_NOT_ALLOWED: true,
  PSP_INVALID_TRANSACTION: true,
  ORG_NUMBER_MALFORMED: true,
  ORG_NUMBER_NOT_FOUND: true,
  ORG_NUMBER_SUB_ENTITY: true,
  ORG_NUMBER_NOT_ACTIVE: true,
  PSP_SIGNUP_MERCHANT_NOT_FOUND: true,
  PSP_SIGNUP_MERCHANT_DEACTIVATED: true,
  IDEMPOTENCY_CONFLICT: true,
});

/** The graph's optional inputs come as null; the REST bodies leave such fields out. */
function withoutNulls<T extends object>(input: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== undefined));
}

const createdKeyset = newestFirst<CreatedKey>();

/** Thin: arguments -> PSP services -> payloads. Every read is the calling PSP's, of the request's sales unit. */
export const pspResolvers: Resolvers = {
  Query: {
    pspPayment: (_, { pspTransactionId }, { request }) => findPspPaymentByTransactionId(request, pspTransactionId),
    pspPayments: async (_, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, createdKeyset, 20, cursorsOf('Query.pspPayments', request));
      return page.connection(await listPspPayments(request, { limit: page.limit, after: page.after }));
    },
    pspMerchants: (_, __, { request }) => listSignupMerchants(request),
  },
  Mutation: {
    signUpPspMerchant: (_, { input }, { request }) =>
      withUserErrors(PSP_ERROR_CODES, async () => {
        const { idempotencyKey, address, ...fields } = input;
        const command = createMerchantBody.parse({ ...withoutNulls(fields), address: withoutNulls(address) });
        const msn = await createSignupMerchant(request, command, idempotencyKey);
        return { merchant: await getSignupMerchant(request, msn) };
      }),
    updatePspMerchant: (_, { input }, { request }) =>
      withUserErrors(PSP_ERROR_CODES, async () => {
        const { merchantSerialNumber, address, ...fields } = input;
        const command = updateMerchantBody.parse({ ...withoutNulls(fields), ...(address ? { address: withoutNulls(address) } : {}) });
        await updateSignupMerchant(request, merchantSerialNumber, command);
        return { merchant: await getSignupMerchant(request, merchantSerialNumber) };
      }),
    initiatePspPayment: (_, { input }, { request }) =>
      withUserErrors(PSP_ERROR_CODES, async () => {
        pspOf(request);
        return { pspPayment: await initiatePspPayment(request, initiateBody.parse(withoutNulls(input))) };
      }),
    updatePspStatus: (_, { input }, { request }) =>
      withUserErrors(PSP_ERROR_CODES, async () => {
        pspOf(request);
        const transactions = updateStatusBody.parse({ transactions: input.transactions.map(withoutNulls) });
        return { queued: await queueStatusUpdates(request, transactions) };
      }),
  },
  Subscription: {
    pspPaymentChanges: {
      subscribe: (_, args, context) => subscribeToPspPaymentChanges(context, args),
      resolve: (source: unknown) => source as never,
    },
  },
  PspPaymentChange: {
    eventName: ({ event }) => event.name,
    occurredAt: ({ event }) => event.occurredAt.toISOString(),
    pspPayment: async ({ event }, _, { request }) => {
      const payment = await request.loaders.get(pspPaymentByIdLoader).load(event.streamId);
      if (!payment) throw new Error(`PSP payment ${event.streamId} of event ${event.id} not found`);
      return payment;
    },
  },
  PspPayment: {
    id: (p) => toGlobalId('PspPayment', p.id),
    merchantSerialNumber: (p) => p.msn,
    redirectUrl: (p, _, { services }) => (p.approvalToken ? pspLandingUrl(services.config.publicUrl, p.approvalToken) : null),
    createdAt: (p) => p.createdAt.toISOString(),
    summary: (p) => transactionSummary(p),
    log: (p, _, { request }) => request.loaders.get(pspPaymentLogByPaymentIdLoader).load(p.id),
  },
  PspMerchant: {
    merchantSerialNumber: (m) => m.msn,
    createdAt: (m) => m.createdAt.toISOString(),
    updatedAt: (m) => m.updatedAt.toISOString(),
    salesUnits: (m, _, { request }) => request.loaders.get(pspSalesUnitsByMsnLoader).load(m.msn),
  },
  PspTransactionLogEntry: {
    timeStamp: (entry) => entry.occurredAt.toISOString(),
  },
};
