import type { Services } from '../context.js';
import { RateLimitRefusal } from '../rate-limit/rate-limit-refusal.js';

/**
 * The lockout of a client's secret: each check of it reserves one attempt of the caller's `secretFailures` quota
 * before it runs and gives it back once the secret is accepted, so however many wrong secrets arrive at once, no
 * more than the quota are ever checked (the rest are 429). Counted per client id and caller address: a client id
 * is anyone's to send, and wrong secrets from one address must not lock the client out from its own.
 */
export async function checkSecret<T>(
  services: Services,
  clientId: string,
  callerAddress: string,
  check: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const limiter = services.rateLimiter;
  const key = `${clientId}\n${callerAddress}`;
  const reserved = await limiter.charge('secretFailures', key);
  if (!reserved.allowed) throw new RateLimitRefusal(reserved.state);
  let accepted: T | undefined;
  try {
    accepted = await check();
  } catch (error) {
    // A check that could not run (the database) says nothing about the secret.
    await limiter.refund('secretFailures', key);
    throw error;
  }
  if (accepted !== undefined) await limiter.refund('secretFailures', key);
  return accepted;
}
