import { errorEntry } from '../platform/errors/catalogue.js';
import { problemType, type ErrorFormat } from '../platform/rest/error-formats/error-format.js';

/**
 * Checkout (FACTS §8: `CheckoutProblemDetails`): a problem with a required `errorCode` and `errors` as
 * `{field: [messages]}`. A bad request is `Validation-00001` as in the public examples; other failures carry
 * their own stable code: the catalogue's `checkoutCode` where the failure has one.
 */
export const checkoutProblem: ErrorFormat = {
  name: 'checkout problem',
  contentType: 'application/json',
  jsonSchema: {
    type: 'object',
    required: ['errorCode', 'errors'],
    properties: {
      type: { type: 'string', nullable: true },
      title: { type: 'string', nullable: true },
      status: { type: 'integer', format: 'int32', nullable: true },
      detail: { type: 'string', nullable: true },
      instance: { type: 'string', nullable: true },
      errorCode: { type: 'string' },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    },
  },
  render(error, request) {
    const errors: Record<string, string[]> = {};
    for (const { name, reason } of error.details) (errors[name] ??= []).push(reason);
    const validation = error.isInvalidRequest;
    return {
      status: error.status,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: {
        type: problemType(error.status),
        title: error.title,
        status: error.status,
        detail: error.message,
        instance: request.path,
        errorCode: validation ? 'Validation-00001' : (errorEntry(error.code).checkoutCode ?? error.code),
        errors,
      },
    };
  },
};
