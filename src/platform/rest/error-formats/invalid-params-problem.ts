import { nameReasonSchema, problemType, type ErrorFormat } from './error-format.js';

/**
 * Order management and QR (FACTS §4, §5: `ErrorResponse` / `QrErrorResponse`): `{type, title, detail, instance,
 * invalidParams[{name, reason}]}` as application/json. `instance` identifies the occurrence, as in the public
 * examples, so it is the trace id.
 */
export const invalidParamsProblem: ErrorFormat = {
  name: 'invalidParams problem',
  contentType: 'application/json',
  jsonSchema: {
    type: 'object',
    required: ['title', 'detail', 'instance'],
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      detail: { type: 'string' },
      instance: { type: 'string' },
      invalidParams: { type: 'array', items: nameReasonSchema },
    },
  },
  render(error, request) {
    return {
      status: error.status,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: {
        type: problemType(error.status),
        title: error.title,
        detail: error.message,
        instance: request.traceId,
        invalidParams: error.details.map(({ name, reason }) => ({ name, reason })),
      },
    };
  },
};
