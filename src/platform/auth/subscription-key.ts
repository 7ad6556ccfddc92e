import type { Em } from '../db/orm.js';
import { ApiClient } from './api-client.entity.js';
import { principalOfClient } from './access-token.service.js';
import type { TokenPrincipal } from './authenticate.js';
import { digest } from './digest.js';

/**
 * The principal whose API client holds this subscription key, for a request authorized by a token that is not an
 * API client's (a wallet user's token) but still presents the caller's key. Undefined for a key nobody holds.
 */
export async function principalOfSubscriptionKey(em: Em, subscriptionKey: string): Promise<TokenPrincipal | undefined> {
  const client = await em.findOne(ApiClient, { subscriptionKeyDigest: digest(subscriptionKey) });
  return client ? principalOfClient(client) : undefined;
}
