/**
 * The rate-limit fields of the IETF HTTPAPI draft "RateLimit header fields for HTTP",
 * draft-ietf-httpapi-ratelimit-headers-10 (September 2025): `RateLimit-Policy` names a quota policy with its quota
 * (`q`) and window in seconds (`w`); `RateLimit` says what is left of it (`r`) and in how many seconds the window
 * resets (`t`). A refusal adds `Retry-After` (RFC 9110).
 */
export interface RateLimitState {
  policy: string;
  quota: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

export function rateLimitFields(state: RateLimitState): Record<string, string> {
  const name = JSON.stringify(state.policy);
  return {
    'ratelimit-policy': `${name};q=${state.quota};w=${state.windowSeconds}`,
    ratelimit: `${name};r=${Math.max(0, state.remaining)};t=${state.resetSeconds}`,
  };
}

export function refusalFields(state: RateLimitState): Record<string, string> {
  return { ...rateLimitFields(state), 'retry-after': String(Math.max(1, state.resetSeconds)) };
}
