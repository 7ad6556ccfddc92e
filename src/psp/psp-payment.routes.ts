import type { HeaderRules } from '../platform/auth/header-rules.js';
import type { AuthRule } from '../platform/auth/request-context.js';
import type { Services } from '../platform/context.js';
import { pspErrorArray } from './psp-error-array.js';
import type { ParamRule } from '../platform/rest/path-params.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { deletePspAgreement, processPaymentOnToken } from './psp-agreement.service.js';
import { forceApprovePspPayment } from './psp-approval.service.js';
import { detailsResponse, initiateResponse, tokenPaymentResponse, UPDATE_STATUS_ACCEPTED } from './psp-payment.presenter.js';
import {
  initiateBody,
  pspForceApproveBody,
  PSP_TRANSACTION_ID_PATTERN,
  tokenPaymentBody,
  updateStatusBody,
} from './psp-payment.schemas.js';
import { getPspPaymentDetails, initiatePspPayment } from './psp-payment.service.js';
import { queueStatusUpdates } from './psp-status-update.service.js';

/** PSP payment operations: the PSP's token, subscription key and `Psp-Id`, for one of its merchants' sales units. */
export const PSP_API_AUTH = { method: 'bearer', accepts: ['psp'] } satisfies AuthRule;
export const PSP_API_HEADERS: HeaderRules = { msn: 'required', systemHeaders: { presence: 'optional', maxLength: 30 }, pspId: 'required' };
const WITH_USER_TOKEN: HeaderRules = { ...PSP_API_HEADERS, userToken: 'required' };

const pspTransactionId: ParamRule = {
  accepts: (value) => PSP_TRANSACTION_ID_PATTERN.test(value),
  reason: 'Must be 1 to 36 lowercase letters and digits',
  jsonSchema: { type: 'string', pattern: PSP_TRANSACTION_ID_PATTERN.source },
};

/** The PSP API v3 (FACTS §6). Two of its operations also take the user's `User-Token`: their own header rules say so. */
export function pspPaymentRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    { name: 'PSP API', prefix: '/psp/v3', errorFormat: pspErrorArray, auth: PSP_API_AUTH, headers: PSP_API_HEADERS },
    (route) => [
      route({
        method: 'POST',
        path: '/psppayments/init',
        summary: 'Initiate a PSP payment',
        idempotent: false,
        body: initiateBody,
        success: { status: 200, description: 'The payment and the landing page the user approves it on' },
        handler: async (ctx, { body }) => {
          return { status: 200, body: initiateResponse(await initiatePspPayment(ctx, body), services.config.publicUrl) };
        },
      }),
      route({
        method: 'POST',
        path: '/psppayments/updatestatus',
        summary: 'Report status changes of PSP transactions (applied by the nightly batch)',
        idempotent: false,
        body: updateStatusBody,
        success: { status: 200, description: 'The updates were accepted for the nightly batch' },
        handler: async (ctx, { body }) => {
          await queueStatusUpdates(ctx, body);
          return { status: 200, body: UPDATE_STATUS_ACCEPTED };
        },
      }),
      route({
        method: 'GET',
        path: '/psppayments/{pspTransactionId}/details',
        summary: 'Get the details of a PSP payment',
        idempotent: false,
        params: { pspTransactionId },
        success: { status: 200, description: 'Summary and operation log' },
        handler: async (ctx, { params }) => {
          const { payment, log } = await getPspPaymentDetails(ctx, params.pspTransactionId);
          return { status: 200, body: detailsResponse(payment, log) };
        },
      }),
      route({
        method: 'POST',
        path: '/psppayments/payments',
        summary: 'Get card data to process a payment on a stored token (recurring)',
        idempotent: false,
        body: tokenPaymentBody,
        headers: WITH_USER_TOKEN,
        success: { status: 200, description: 'A fresh network token' },
        handler: async (ctx, { body, headers }) => {
          const { payment, networkToken } = await processPaymentOnToken(ctx, headers.userToken, body);
          return { status: 200, body: tokenPaymentResponse(payment, networkToken) };
        },
      }),
      route({
        method: 'DELETE',
        path: '/psppayments/agreements',
        summary: 'End a recurring agreement',
        idempotent: false,
        headers: WITH_USER_TOKEN,
        success: { status: 200, description: 'The agreement has ended' },
        handler: async (ctx, { headers }) => {
          await deletePspAgreement(ctx, headers.userToken);
          return { status: 200 };
        },
      }),
      route({
        method: 'POST',
        path: '/integration-test/psppayments/{pspTransactionId}/approve',
        summary: 'Approve a PSP payment as a test user (test environment only)',
        idempotent: false,
        params: { pspTransactionId },
        body: pspForceApproveBody,
        success: { status: 200, description: 'The payment was approved' },
        handler: async (ctx, { params, body }) => {
          await forceApprovePspPayment(ctx, params.pspTransactionId, body);
          return { status: 200 };
        },
      }),
    ],
  );
}
