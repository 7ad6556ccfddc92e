import type { RequestContext, Services } from '../context.js';

/** What every resolver gets: the authenticated request context and the process services. */
export interface GraphQLContext {
  request: RequestContext;
  services: Services;
}
