import { AppError } from '../errors/app-error.js';
import { errorEntry } from '../errors/catalogue.js';
import type { HttpRequest, HttpResponse } from './http-types.js';

/**
 * The ePayment and webhooks error body (FACTS §1.4, §2): problem+json with `extraDetails[{name, reason}]`.
 * Domain failures also carry their public error code as `{name: "ErrorCode", reason: "6090"}`.
 */
export function renderEpaymentProblem(error: AppError, request: HttpRequest): HttpResponse {
  const extraDetails = [...error.details];
  const vippsCode = errorEntry(error.code).vippsCode;
  if (vippsCode) extraDetails.push({ name: 'ErrorCode', reason: vippsCode });
  return {
    status: error.status,
    headers: { 'content-type': 'application/problem+json' },
    body: {
      type: `https://httpstatuses.io/${error.status}`,
      title: error.title,
      status: error.status,
      detail: error.message,
      instance: request.path,
      traceId: request.traceId,
      extraDetails,
    },
  };
}

/** Anything that is not an AppError is internal: the client gets a trace id, never the message. */
export function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError('INTERNAL', 'An internal error occurred; quote the traceId when reporting it');
}
