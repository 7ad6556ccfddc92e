import { AppError } from '../errors/app-error.js';
import { refusalFields, type RateLimitState } from './rate-limit-fields.js';

export function rateLimitMessage(state: RateLimitState): string {
  return `Rate limit exceeded (${state.policy}: ${state.quota} per ${state.windowSeconds} s); retry after the Retry-After seconds`;
}

/**
 * A quota refused a request once its credentials were known (a per-reference limit, the lockout of a client's
 * secret): a 429 that the face answering it renders with the quota's `Retry-After` and RateLimit fields.
 */
export class RateLimitRefusal extends AppError {
  constructor(readonly state: RateLimitState) {
    super('RATE_LIMITED', rateLimitMessage(state));
  }
  override get headers(): Record<string, string> {
    return refusalFields(this.state);
  }
}
