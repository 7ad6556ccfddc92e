import type { Resolvers } from '../src/generated/graphql.js';
import { withUserErrors } from '../src/platform/graph/user-errors.js';
import { withoutNulls } from '../src/platform/validation/without-nulls.js';
import { pspSalesUnitsByMsnLoader } from '../src/psp-signup/signup.queries.js';
import { createMerchantBody, updateMerchantBody } from '../src/psp-signup/signup.schemas.js';
import { createSignupMerchant, getSignupMerchant, listSignupMerchants, updateSignupMerchant } from '../src/psp-signup/signup.service.js';
import { PSP_ERROR_CODES } from './psp.js';

/** Thin: the REST signup bodies' rules, one key space for idempotency; every merchant is the calling PSP's. */
export const pspSignupResolvers: Resolvers = {
  Query: {
    pspMerchants: (_, __, { request }) => listSignupMerchants(request),
  },
  Mutation: {
    signUpPspMerchant: (_, { input }, { request }) =>
      withUserErrors(PSP_ERROR_CODES, async () => {
        const { idempotencyKey, ...fields } = input;
        const msn = await createSignupMerchant(request, createMerchantBody.parse(withoutNulls(fields)), idempotencyKey);
        return { merchant: await getSignupMerchant(request, msn) };
      }),
    updatePspMerchant: (_, { input }, { request }) =>
      withUserErrors(PSP_ERROR_CODES, async () => {
        const { merchantSerialNumber, ...fields } = input;
        await updateSignupMerchant(request, merchantSerialNumber, updateMerchantBody.parse(withoutNulls(fields)));
        return { merchant: await getSignupMerchant(request, merchantSerialNumber) };
      }),
  },
  PspMerchant: {
    merchantSerialNumber: (m) => m.msn,
    createdAt: (m) => m.createdAt.toISOString(),
    updatedAt: (m) => m.updatedAt.toISOString(),
    salesUnits: (m, _, { request }) => request.loaders.get(pspSalesUnitsByMsnLoader).load(m.msn),
  },
};
