import type { RequestContext, Services } from '../context.js';
import type { Verdict } from '../rate-limit/request-limiter.js';

/** What every resolver gets: the authenticated request context and the process services. */
export interface GraphQLContext {
  request: RequestContext;
  services: Services;
  /**
   * The rate limiter's verdict on this operation, once it was charged: a request the direct path hands to Apollo
   * (direct-execution.ts) is not charged twice.
   */
  charged?: Verdict;
}
