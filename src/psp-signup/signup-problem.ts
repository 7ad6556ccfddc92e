import { problemType, type ErrorFormat } from '../platform/rest/error-formats/error-format.js';

/**
 * PSP signup (FACTS §7: `Error`): `{type, title, status, detail, instance}` with a numeric status, as
 * application/json;charset=UTF-8. It has no field list: the detail names every failing field.
 */
export const signupProblem: ErrorFormat = {
  name: 'signup problem',
  contentType: 'application/json;charset=UTF-8',
  jsonSchema: {
    type: 'object',
    required: ['detail', 'instance', 'status', 'title'],
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'number' },
      detail: { type: 'string' },
      instance: { type: 'string' },
    },
  },
  render(error, request) {
    return {
      status: error.status,
      headers: { 'content-type': 'application/json;charset=UTF-8' },
      body: { type: problemType(error.status), title: error.title, status: error.status, detail: error.message, instance: request.path },
    };
  },
};
