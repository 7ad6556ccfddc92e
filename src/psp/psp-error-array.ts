import { errorEntry } from '../platform/errors/catalogue.js';
import type { ErrorFormat } from '../platform/rest/error-formats/error-format.js';

/** PSP error code 51: "invalid request" (FACTS §6). */
const INVALID_REQUEST = '51';

/**
 * The PSP API (FACTS §6: `ErrorDetails`): the body is an array of `{errorCode, errorMessage, contextId}`, one
 * entry per failing field of a bad request, otherwise one entry. Codes are strings; a failure without a PSP
 * code of its own (`pspCode` in the catalogue) gives its HTTP status.
 */
export const pspErrorArray: ErrorFormat = {
  name: 'PSP error array',
  contentType: 'application/json',
  jsonSchema: {
    type: 'array',
    items: {
      type: 'object',
      properties: { errorCode: { type: 'string' }, errorMessage: { type: 'string' }, contextId: { type: 'string' } },
    },
  },
  render(error, request) {
    const validation = error.isInvalidRequest;
    const errorCode = validation ? INVALID_REQUEST : (errorEntry(error.code).pspCode ?? String(error.status));
    const entries =
      validation && error.details.length > 0
        ? error.details.map((d) => ({ errorCode, errorMessage: `${d.name}: ${d.reason}`, contextId: request.traceId }))
        : [{ errorCode, errorMessage: error.message, contextId: request.traceId }];
    return { status: error.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: entries };
  },
};
