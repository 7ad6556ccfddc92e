import type { ErrorFormat } from '../platform/rest/error-formats/error-format.js';

/** Report API error codes (FACTS §11): 10002 a request that did not validate (any refusal of the request), 10001 anything else. */
const VALIDATION = 10002;
const UNKNOWN = 10001;

/**
 * The settlement ledger / report API (FACTS §11): `{errorCode (number), errorMessage, contextId}`; an
 * authentication failure is `{code, message}` there, as its 401 response declares.
 */
export const ledgerError: ErrorFormat = {
  name: 'ledger error',
  contentType: 'application/json',
  jsonSchema: {
    oneOf: [
      {
        type: 'object',
        properties: { errorCode: { type: 'number' }, errorMessage: { type: 'string' }, contextId: { type: 'string' } },
      },
      { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
    ],
  },
  render(error, request) {
    const headers = { 'content-type': 'application/json; charset=utf-8' };
    if (error.status === 401) return { status: 401, headers, body: { code: 'Unauthorized', message: error.message } };
    // A request the client must change (a bad parameter or cursor, an unknown ledger) is 10002; a failure of ours 10001.
    const validation = error.isInvalidRequest || (error.status >= 400 && error.status < 500);
    return {
      status: error.status,
      headers,
      body: { errorCode: validation ? VALIDATION : UNKNOWN, errorMessage: error.message, contextId: request.traceId },
    };
  },
};
