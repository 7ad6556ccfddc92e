import type { HeaderRules } from '../platform/auth/header-rules.js';
import type { AuthRule } from '../platform/auth/request-context.js';
import type { Services } from '../platform/context.js';
import { signupProblem } from './signup-problem.js';
import type { ParamRule } from '../platform/rest/path-params.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { createMerchantBody, updateMerchantBody } from './signup.schemas.js';
import {
  createSignupMerchant,
  getSignupMerchant,
  listSignupMerchants,
  merchantResponse,
  MSN_PATTERN,
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

/** A PSP's token and key; the PSP acts as a whole (its merchants), naming no sales unit. */
const SIGNUP_AUTH = { method: 'bearer', accepts: ['psp'], scope: 'principal' } satisfies AuthRule;

/** The PSP signup API 1.1.7 (FACTS §7). The PSP is named by its token alone. */
export function signupRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    {
      name: 'PSP Signup API',
      prefix: '/merchant-management/psp/v1',
      errorFormat: signupProblem,
      auth: SIGNUP_AUTH,
      headers: SIGNUP_HEADERS,
    },
    (route) => [
      route({
        method: 'GET',
        path: '/merchants',
        summary: 'Get all merchants of the PSP',
        idempotent: false,
        success: { status: 200, description: 'The merchants' },
        handler: async (ctx) => ({
          status: 200,
          headers: JSON_UTF8,
          body: { merchants: (await listSignupMerchants(ctx)).map(merchantResponse) },
        }),
      }),
      route({
        method: 'POST',
        path: '/merchants',
        summary: 'Create a new merchant',
        idempotent: true,
        body: createMerchantBody,
        success: { status: 200, description: 'The new merchant’s serial number' },
        handler: async (ctx, { body, idempotencyKey }) => ({
          status: 200,
          headers: JSON_UTF8,
          body: { merchantSerialNumber: await createSignupMerchant(ctx, body, idempotencyKey) },
        }),
      }),
      route({
        method: 'GET',
        path: '/merchants/{merchantSerialNumber}',
        summary: 'Get a merchant',
        idempotent: false,
        params: { merchantSerialNumber },
        success: { status: 200, description: 'The merchant' },
        handler: async (ctx, { params }) => ({
          status: 200,
          headers: JSON_UTF8,
          body: merchantResponse(await getSignupMerchant(ctx, params.merchantSerialNumber)),
        }),
      }),
      route({
        method: 'PATCH',
        path: '/merchants/{merchantSerialNumber}',
        summary: 'Update a merchant (deactivate is final)',
        idempotent: false,
        params: { merchantSerialNumber },
        body: updateMerchantBody,
        success: { status: 200, description: 'Updated; no body' },
        handler: async (ctx, { params, body }) => {
          await updateSignupMerchant(ctx, params.merchantSerialNumber, body);
          return { status: 200 };
        },
      }),
    ],
  );
}
