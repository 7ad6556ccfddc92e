import type { GraphQLFormattedError } from 'graphql';
import { DatabaseUnavailable, isConnectionLost, RETRY_AFTER_SECONDS } from '../db/connection-lost.js';

/**
 * A resolver or a subscription whose database connection was lost: not an internal error but SERVICE_UNAVAILABLE,
 * which a client retries after `retryAfterSeconds`, as REST answers 503 with `Retry-After`. Undefined for any other
 * failure.
 */
export function unavailableError(cause: unknown, path: GraphQLFormattedError['path']): GraphQLFormattedError | undefined {
  if (!(cause instanceof DatabaseUnavailable) && !isConnectionLost(cause)) return undefined;
  return {
    message: 'The database connection was lost; retry after retryAfterSeconds',
    ...(path ? { path } : {}),
    extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: RETRY_AFTER_SECONDS },
  };
}
