import { declaredVippsCodes, errorEntry } from '../../errors/catalogue.js';
import { nameReasonSchema, tracedProblem, type ErrorFormat } from './error-format.js';

/**
 * The ePayment and webhooks error body (FACTS §1.4, §2): problem+json with `extraDetails[{name, reason}]`.
 * Domain failures also carry their public error code as `{name: "ErrorCode", reason: "6090"}`.
 */
export const epaymentProblem: ErrorFormat = {
  name: 'ePayment problem',
  contentType: 'application/problem+json',
  /**
   * Read when the OpenAPI document is built, after every domain declared its codes: `extraDetails` lists the
   * four-digit codes (FACTS §14.3) a refusal may carry, so a client sees what it can branch on.
   */
  get jsonSchema() {
    const codes = declaredVippsCodes()
      .map(({ code, title }) => `${code} ${title}`)
      .join('; ');
    return {
      type: 'object',
      required: ['type', 'title', 'status', 'traceId'],
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        instance: { type: 'string' },
        traceId: { type: 'string' },
        extraDetails: {
          type: 'array',
          items: nameReasonSchema,
          description: `The fields refused, by name; a domain refusal adds {"name": "ErrorCode", "reason": "<code>"} (a malformed field has none). Codes: ${codes}`,
        },
      },
    };
  },
  render(error, request) {
    const extraDetails = [...error.details];
    const vippsCode = errorEntry(error.code).vippsCode;
    if (vippsCode) extraDetails.push({ name: 'ErrorCode', reason: vippsCode });
    return tracedProblem(error, request, extraDetails);
  },
};
