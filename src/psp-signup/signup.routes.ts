import { authenticateBearer } from '../platform/auth/authenticate.js';
import type { HeaderRules } from '../platform/auth/header-rules.js';
import { contextFor } from '../platform/auth/request-context.js';
import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { signupProblem } from '../platform/rest/error-formats/signup-problem.js';
import type { ParamRule } from '../platform/rest/path-params.js';
import { defineRestInterface, type PublicContext, type RestInterface } from '../platform/rest/rest-interface.js';
import { createMerchantBody, updateMerchantBody } from './signup.schemas.js';
import {
  createSignupMerchant,
  getSignupMerchant,
  listSignupMerchants,
  merchantResponse,
  MSN_PATTERN,
  signupContext,
  updateSignupMerchant,
} from './signup.service.js';

/** Token and subscription key only: the token names the PSP; no MSN, no Psp-Id (FACTS §7). */
const SIGNUP_HEADERS: HeaderRules = { msn: 'optional', systemHeaders: { presence: 'optional', maxLength: 30 } };
const JSON_UTF8 = { 'content-type': 'application/json;charset=UTF-8' };

const merchantSerialNumber: ParamRule = {
  accepts: (value) => MSN_PATTERN.test(value),
  reason: 'Must be 5 or 6 digits',
  jsonSchema: { type: 'string', pattern: MSN_PATTERN.source },
};

/** The PSP signup API 1.1.7 (FACTS §7). The PSP is named by its token alone, so each route authenticates itself. */
export function signupRoutes(services: Services): RestInterface {
  const context = (publicCtx: PublicContext) => {
    const principal = authenticateBearer(services, publicCtx.lookupHeader);
    if (principal.kind !== 'psp') {
      throw new AppError('FORBIDDEN_PRINCIPAL', 'These credentials may not use this interface', [
        { name: 'Authorization', reason: `Not accepted here: credentials of a ${principal.kind}` },
      ]);
    }
    return signupContext(contextFor(services, forkEm(services.orm), principal, { msn: '', readsMerchantData: false }, publicCtx.traceId));
  };
  return defineRestInterface(
    services,
    { name: 'PSP Signup API', prefix: '/merchant-management/psp/v1', errorFormat: signupProblem, auth: 'public', headers: SIGNUP_HEADERS },
    (route) => [
      route({
        method: 'GET',
        path: '/merchants',
        summary: 'Get all merchants of the PSP',
        idempotent: false,
        documentedAuth: 'bearer',
        success: { status: 200, description: 'The merchants' },
        handler: async (publicCtx) => ({
          status: 200,
          headers: JSON_UTF8,
          body: { merchants: (await listSignupMerchants(context(publicCtx))).map(merchantResponse) },
        }),
      }),
      route({
        method: 'POST',
        path: '/merchants',
        summary: 'Create a new merchant',
        idempotent: true,
        documentedAuth: 'bearer',
        body: createMerchantBody,
        success: { status: 200, description: 'The new merchant’s serial number' },
        handler: async (publicCtx, { body, idempotencyKey }) => ({
          status: 200,
          headers: JSON_UTF8,
          body: { merchantSerialNumber: await createSignupMerchant(context(publicCtx), body, idempotencyKey) },
        }),
      }),
      route({
        method: 'GET',
        path: '/merchants/{merchantSerialNumber}',
        summary: 'Get a merchant',
        idempotent: false,
        documentedAuth: 'bearer',
        params: { merchantSerialNumber },
        success: { status: 200, description: 'The merchant' },
        handler: async (publicCtx, { params }) => ({
          status: 200,
          headers: JSON_UTF8,
          body: merchantResponse(await getSignupMerchant(context(publicCtx), params.merchantSerialNumber)),
        }),
      }),
      route({
        method: 'PATCH',
        path: '/merchants/{merchantSerialNumber}',
        summary: 'Update a merchant (deactivate is final)',
        idempotent: false,
        documentedAuth: 'bearer',
        params: { merchantSerialNumber },
        body: updateMerchantBody,
        success: { status: 200, description: 'Updated; no body' },
        handler: async (publicCtx, { params, body }) => {
          await updateSignupMerchant(context(publicCtx), params.merchantSerialNumber, body);
          return { status: 200 };
        },
      }),
    ],
  );
}
