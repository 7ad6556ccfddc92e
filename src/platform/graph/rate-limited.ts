import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type DocumentNode } from 'graphql';
import type { Services } from '../context.js';
import { rateLimitFields, refusalFields, type RateLimitState } from '../rate-limit/rate-limit-fields.js';
import type { Verdict } from '../rate-limit/request-limiter.js';
import type { GraphQLContext } from './graphql-context.js';
import { costOf, measureDocument } from './query-limits.js';

/**
 * A graph operation spends its caller's quota by its cost, the one the query limits measured when the document was
 * validated (kept with the parsed document, which Apollo caches: a repeated query is not measured again).
 */
export async function chargeOperation(
  services: Services,
  clientId: string,
  document: DocumentNode,
  operationName: string | undefined,
): Promise<Verdict> {
  const cost = costOf(document, operationName) ?? measureDocument(document).operations.get(operationName ?? '')?.cost ?? 1;
  return services.rateLimiter.charge('client', clientId, services.rateLimiter.graphPoints(cost));
}

/** The refusal on either face: a GraphQL error with `extensions.code` RATE_LIMITED, and on HTTP a 429 with the fields. */
export function rateLimitedError(state: RateLimitState, overHttp: boolean): GraphQLError {
  const fields = refusalFields(state);
  return new GraphQLError(
    `Rate limit exceeded (${state.policy}: ${state.quota} per ${state.windowSeconds} s); retry in ${fields['retry-after']} s`,
    {
      extensions: {
        code: 'RATE_LIMITED',
        retryAfterSeconds: Number(fields['retry-after']),
        ...(overHttp ? { http: { status: 429, headers: new HeaderMap(Object.entries(fields)) } } : {}),
      },
    },
  );
}

/** POST /graphql: charged once the operation is resolved (validated, so its cost is known), before it runs. */
export const rateLimitedByCost: ApolloServerPlugin<GraphQLContext> = {
  requestDidStart: async ({ contextValue }) => ({
    didResolveOperation: async ({ document, operationName, response }) => {
      const verdict =
        contextValue.charged ??
        (await chargeOperation(contextValue.services, contextValue.request.principal.clientId, document, operationName ?? undefined));
      for (const [name, value] of Object.entries(rateLimitFields(verdict.state))) response.http.headers.set(name, value);
      if (!verdict.allowed) throw rateLimitedError(verdict.state, true);
    },
  }),
};
