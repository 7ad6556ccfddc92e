import { problemType, type ErrorFormat } from '../platform/rest/error-formats/error-format.js';

/**
 * The user profile (userinfo) API (FACTS §10: `UserinfoError`): `{type, title, status, detail, instance,
 * extraInfo}`, where `status` is a **string**; failing fields go in `extraInfo` as `{field: {reason}}`.
 */
export const userinfoProblem: ErrorFormat = {
  name: 'user profile problem',
  contentType: 'application/json;charset=UTF-8',
  jsonSchema: {
    type: 'object',
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'string' },
      detail: { type: 'string' },
      instance: { type: 'string' },
      extraInfo: { type: 'object', additionalProperties: { type: 'object' } },
    },
  },
  render(error, request) {
    // One object per field: a field that fails several rules has its reasons joined.
    const extraInfo: Record<string, { reason: string }> = {};
    for (const { name, reason } of error.details) {
      const known = extraInfo[name];
      extraInfo[name] = { reason: known ? `${known.reason}; ${reason}` : reason };
    }
    return {
      status: error.status,
      headers: { 'content-type': 'application/json;charset=UTF-8' },
      body: {
        type: problemType(error.status),
        title: error.title,
        status: String(error.status),
        detail: error.message,
        instance: request.traceId,
        extraInfo,
      },
    };
  },
};
