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
import { withoutNulls } from '../src/platform/validation/without-nulls.js';
import { queueStatusUpdates } from '../src/psp/psp-status-update.service.js';

/** The PSP's one error shape (PspUserError), which its merchant signup (psp-signup.ts) reports too. */
export const PSP_ERROR_CODES = userErrorCodes<PspErrorCode>({
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

const createdKeyset = newestFirst<CreatedKey>();

/** Thin: arguments -> PSP services -> payloads. Every read is the calling PSP's, of the request's sales unit. */
export const pspResolvers: Resolvers = {
  Query: {
    pspPayment: (_, { pspTransactionId }, { request }) => findPspPaymentByTransactionId(request, pspTransactionId),
    pspPayments: async (_, { first, after }, { request }) => {
      const page = keysetPage({ first, after }, createdKeyset, 20, cursorsOf('Query.pspPayments', request));
      return page.connection(await listPspPayments(request, { limit: page.limit, after: page.after }));
    },
  },
  Mutation: {
    initiatePspPayment: (_, { input }, { request }) =>
      withUserErrors(PSP_ERROR_CODES, async () => {
        pspOf(request);
        return { pspPayment: await initiatePspPayment(request, initiateBody.parse(withoutNulls(input))) };
      }),
    updatePspStatus: (_, { input }, { request }) =>
      withUserErrors(PSP_ERROR_CODES, async () => {
        pspOf(request);
        const transactions = updateStatusBody.parse(withoutNulls({ transactions: input.transactions }));
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
  PspTransactionLogEntry: {
    timeStamp: (entry) => entry.occurredAt.toISOString(),
  },
};
