import type { Services } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { Checker, isObject } from '../platform/validation/checker.js';
import type { ForceApproveCommand } from '../wallet/force-approve.service.js';
import {
  checkAmount,
  checkCustomer,
  CURRENCIES,
  MAX_AMOUNT,
  parseCreatePayment,
  PHONE_NUMBER_PATTERN,
  REFERENCE_PATTERN,
  USER_FLOWS,
  type CreatePaymentCommand,
} from './create-payment.validation.js';
import type { ModificationAmount } from './payment-modification.service.js';

// Hand-written JSON Schemas of the bodies the hand-written parsers accept, for the OpenAPI document, until the
// request shapes are declared once as schemas that give both.
const amountSchema = {
  type: 'object',
  required: ['currency', 'value'],
  properties: { currency: { type: 'string', enum: CURRENCIES }, value: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT } },
};
const customerSchema = { type: 'object', properties: { phoneNumber: { type: 'string', pattern: PHONE_NUMBER_PATTERN.source } } };

/** The create-payment body (FACTS §1.2); its rules depend on the environment and the time of the request. */
export function createPaymentBody(services: Services): BodyShape<CreatePaymentCommand> {
  return {
    jsonSchema: {
      type: 'object',
      required: ['amount', 'paymentMethod', 'reference', 'userFlow'],
      properties: {
        amount: amountSchema,
        paymentMethod: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['WALLET', 'CARD'] } } },
        reference: { type: 'string', pattern: REFERENCE_PATTERN.source },
        userFlow: { type: 'string', enum: USER_FLOWS },
        customer: customerSchema,
        customerInteraction: { type: 'string', enum: ['CUSTOMER_PRESENT', 'CUSTOMER_NOT_PRESENT'] },
        returnUrl: { type: 'string', maxLength: 2048 },
        paymentDescription: { type: 'string', minLength: 3, maxLength: 100 },
        receipt: { type: 'object' },
        profile: { type: 'object', properties: { scope: { type: 'string' } } },
        expiresAt: { type: 'string', format: 'date-time' },
        qrFormat: {
          type: 'object',
          properties: { format: { type: 'string', enum: ['IMAGE/SVG+XML', 'IMAGE/PNG', 'TEXT/TARGETURL'] }, size: { type: 'integer' } },
        },
      },
    },
    parse: (raw) => parseCreatePayment(raw, { env: services.config.env, now: services.clock.now() }),
  };
}

/** The capture and refund body: `{modificationAmount}`. */
export const modificationAmountBody: BodyShape<ModificationAmount> = {
  jsonSchema: { type: 'object', required: ['modificationAmount'], properties: { modificationAmount: amountSchema } },
  parse(raw) {
    if (!isObject(raw)) throw AppError.validation([{ name: 'modificationAmount', reason: 'Required' }]);
    const check = new Checker();
    const amount = checkAmount(check, raw, 'modificationAmount');
    check.throwIfFailed();
    // The checker reported a missing amount already; this only tells the compiler.
    if (!amount) throw AppError.validation([{ name: 'modificationAmount', reason: 'Required' }]);
    return amount;
  },
};

/** Test-only force approve: an optional customer and token; an empty body approves as the default test user. */
export const forceApprovalBody: BodyShape<ForceApproveCommand> = {
  jsonSchema: {
    type: 'object',
    properties: { customer: customerSchema, token: { type: 'string', minLength: 1, maxLength: 1000 } },
  },
  parse(raw) {
    const body = raw ?? {};
    if (!isObject(body)) throw AppError.validation([{ name: 'body', reason: 'Must be a JSON object' }]);
    const check = new Checker();
    const customer = checkCustomer(check, body.customer, 'customer');
    const token = check.string(body, 'token', 'token', { min: 1, max: 1000 });
    check.throwIfFailed();
    return { customer, token };
  },
};
