import { DatabaseUnavailable, isConnectionLost } from '../../db/connection-lost.js';
import { AppError } from '../../errors/app-error.js';
import type { HttpRequest, HttpResponse } from '../http-types.js';

/** How one public interface writes its errors: each has its own documented body (DESIGN "Errors"). */
export interface ErrorFormat {
  readonly name: string;
  /** The body's JSON Schema, for the interface's OpenAPI document. */
  readonly jsonSchema: Record<string, unknown>;
  readonly contentType: string;
  render(error: AppError, request: HttpRequest): HttpResponse;
}

/**
 * Anything that is not an AppError is internal (the client gets a trace id, never the message), but a lost database
 * connection, which a retry may well get past: 503.
 */
export function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isConnectionLost(error)) return new DatabaseUnavailable(error);
  return new AppError('INTERNAL', 'An internal error occurred; quote the traceId when reporting it');
}

/** The `type` URI of the problem bodies: the status's page. */
export function problemType(status: number): string {
  return `https://httpstatuses.io/${status}`;
}

/**
 * The problem+json answer with a trace id and `extraDetails`, which the ePayment/webhooks and management bodies
 * share; they differ only in how a detail is written.
 */
export function tracedProblem(error: AppError, request: HttpRequest, extraDetails: readonly object[]): HttpResponse {
  return {
    status: error.status,
    headers: { 'content-type': 'application/problem+json' },
    body: {
      type: problemType(error.status),
      title: error.title,
      status: error.status,
      detail: error.message,
      instance: request.path,
      traceId: request.traceId,
      extraDetails,
    },
  };
}

export const nameReasonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, reason: { type: 'string' } },
};
