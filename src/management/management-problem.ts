import { errorEntry } from '../platform/errors/catalogue.js';
import { tracedProblem, type ErrorFormat } from '../platform/rest/error-formats/error-format.js';

/**
 * Management API (FACTS §9: `Problem`): `{type, title, status, detail, instance, traceId, extraDetails[{key,
 * value}]}`; failing fields as `{key: field, value: reason}`, a public error code as `{key: "CustomErrorCode"}`.
 */
export const managementProblem: ErrorFormat = {
  name: 'management problem',
  contentType: 'application/problem+json',
  jsonSchema: {
    type: 'object',
    properties: {
      type: { type: 'string', format: 'uri' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      instance: { type: 'string' },
      traceId: { type: 'string' },
      extraDetails: {
        type: 'array',
        items: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } } },
      },
    },
  },
  render(error, request) {
    const extraDetails = error.details.map(({ name, reason }) => ({ key: name, value: reason }));
    const code = errorEntry(error.code).vippsCode;
    if (code) extraDetails.push({ key: 'CustomErrorCode', value: code });
    return tracedProblem(error, request, extraDetails);
  },
};
