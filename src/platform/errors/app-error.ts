import { errorEntry, type ErrorCode } from './catalogue.js';
// The platform's own codes are used by every face; domains register theirs from their modules.
import './platform.errors.js';

export interface ErrorDetail {
  /** The field the problem is about, as a dotted path in the request (`amount.value`) or a header name. */
  name: string;
  reason: string;
}

/** An expected failure with a stable code from the catalogue; anything else is an internal error. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  /** `options.cause`: the failure this refusal translates, e.g. a constraint violation. */
  constructor(code: ErrorCode, detail?: string, details: ErrorDetail[] = [], options?: ErrorOptions) {
    super(detail ?? errorEntry(code).title, options);
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return errorEntry(this.code).status;
  }
  get title(): string {
    return errorEntry(this.code).title;
  }
  /** Response headers the refusal carries on REST, whatever the interface's body (`Retry-After`, RateLimit fields). */
  get headers(): Record<string, string> {
    return {};
  }
  /** A request that did not validate, as body or JSON: the interfaces whose bodies give such a request its own code. */
  get isInvalidRequest(): boolean {
    return this.code === 'VALIDATION_FAILED' || this.code === 'MALFORMED_JSON';
  }
  /** The first field named, for the graph's `userErrors.field`. */
  get field(): string | undefined {
    return this.details[0]?.name;
  }

  static validation(details: ErrorDetail[]): AppError {
    const summary = details.map((d) => `${d.name}: ${d.reason}`).join('; ');
    return new AppError('VALIDATION_FAILED', summary, details);
  }
}
