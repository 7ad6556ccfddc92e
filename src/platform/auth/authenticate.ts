import type { Services } from '../context.js';
import type { Em } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import { ApiClient } from './api-client.entity.js';
import { digest, digestsEqual } from './digest.js';
import { checkSecret } from './secret-attempts.js';
import type { HeaderLookup } from './header-lookup.js';
import type { AccessTokenClaims } from './jwt.js';
import { verifyJwt } from './jwt.js';
import type {
  CheckoutClientPrincipal,
  MerchantPrincipal,
  OperatorPrincipal,
  PartnerPrincipal,
  PspPrincipal,
  WalletClientPrincipal,
} from './principal.js';

export type TokenPrincipal = MerchantPrincipal | PartnerPrincipal | PspPrincipal | OperatorPrincipal | WalletClientPrincipal;

/**
 * Verifies the bearer token and the subscription key it was issued with (an interface whose definition asks for the
 * token alone makes the key optional). Reads no table: the token carries who
 * the caller is, so a request costs no statement for it.
 */
export function authenticateBearer(
  services: Services,
  lookup: HeaderLookup,
  options: { subscriptionKey: 'required' | 'optional' } = { subscriptionKey: 'required' },
): TokenPrincipal {
  const authorization = lookup('Authorization');
  // "Bearer" is case-sensitive in the public definition (FACTS §3).
  if (!authorization?.startsWith('Bearer ') || authorization.slice(7).trim() === '') {
    throw new AppError('UNAUTHORIZED', 'A bearer access token is required in the Authorization header', [
      { name: 'Authorization', reason: 'Expected "Bearer <access token>"' },
    ]);
  }
  const verdict = verifyJwt(authorization.slice(7).trim(), services.config.tokenSecret, Math.floor(services.clock.now().getTime() / 1000));
  if (!verdict.ok) throw new AppError('UNAUTHORIZED', verdict.reason, [{ name: 'Authorization', reason: verdict.reason }]);
  const key = lookup('Ocp-Apim-Subscription-Key');
  // The settlement ledger API takes the token alone (spec 3, "Authentication"): a key sent anyway must still match.
  const keyOptional = options.subscriptionKey === 'optional' && key === undefined && typeof verdict.claims.skd === 'string';
  if (keyOptional) return principalOf(verdict.claims);
  // A token of another kind signed with the same secret (a wallet user's token) carries no key digest: not ours to accept.
  if (key === undefined || typeof verdict.claims.skd !== 'string' || !digestsEqual(digest(key), verdict.claims.skd)) {
    throw new AppError('UNAUTHORIZED', 'The Ocp-Apim-Subscription-Key is missing or does not match the access token', [
      { name: 'Ocp-Apim-Subscription-Key', reason: 'Missing or not the key the access token was issued with' },
    ]);
  }
  return principalOf(verdict.claims);
}

function principalOf(claims: AccessTokenClaims): TokenPrincipal {
  const holder = { clientId: claims.sub, tokenExpiresAt: claims.exp };
  switch (claims.knd) {
    case 'merchant':
      return { kind: 'merchant', merchantId: claims.pid, ...holder };
    case 'partner':
      return { kind: 'partner', partnerId: claims.pid, ...holder };
    case 'psp':
      return { kind: 'psp', pspId: claims.pid, ...holder };
    case 'operator':
      return { kind: 'operator', ...holder };
    case 'wallet':
      return { kind: 'wallet', ...holder };
    default:
      // Signed by us, so only a token of an older format gets here; it names no principal we can trust.
      throw new AppError('UNAUTHORIZED', 'The access token names no principal', [
        { name: 'Authorization', reason: 'Get a new access token' },
      ]);
  }
}

export interface ClientCredentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
  subscriptionKey: string | undefined;
}

/**
 * The API client behind a `client_id`, `client_secret` and subscription key, or undefined when any is wrong; the one
 * check of a client's secret, held to its lockout (`checkSecret`). `now` is the wall clock: a secret's overlap is
 * operations time, which no test clock moves.
 */
export async function findApiClient(
  services: Services,
  em: Em,
  { clientId, clientSecret, subscriptionKey }: ClientCredentials,
  callerAddress: string,
  now: Date,
): Promise<ApiClient | undefined> {
  if (!clientId || !clientSecret || !subscriptionKey) return undefined;
  return checkSecret(services, clientId, callerAddress, async () => {
    const client = await em.findOne(ApiClient, { clientId });
    if (!client || !digestsEqual(digest(subscriptionKey), client.subscriptionKeyDigest)) return undefined;
    const secret = digest(clientSecret);
    if (digestsEqual(secret, client.clientSecretDigest)) return client;
    // A rotated secret works beside the new one until its overlap ends.
    const previous = client.previousClientSecretDigest;
    const retiresAt = client.previousSecretRetiresAt;
    return previous && retiresAt && now < retiresAt && digestsEqual(secret, previous) ? client : undefined;
  });
}

/**
 * The checkout interface's credentials: `client_id`, `client_secret` and the subscription key on every request,
 * no token (FACTS §8). Only a merchant's client may use them; the MSN is then checked like any other.
 */
export async function authenticateCheckoutClient(
  services: Services,
  em: Em,
  lookup: HeaderLookup,
  callerAddress: string,
): Promise<CheckoutClientPrincipal> {
  const credentials = {
    clientId: lookup('client_id'),
    clientSecret: lookup('client_secret'),
    subscriptionKey: lookup('Ocp-Apim-Subscription-Key'),
  };
  const client = await findApiClient(services, em, credentials, callerAddress, new Date());
  if (!client || client.kind !== 'merchant' || !client.merchantId) {
    throw new AppError('INVALID_CLIENT_CREDENTIALS', 'The client_id, client_secret or Ocp-Apim-Subscription-Key is missing or wrong', [
      { name: 'client_id', reason: 'Unknown, or the client_secret or subscription key does not match' },
    ]);
  }
  return { kind: 'checkoutClient', clientId: client.clientId, merchantId: client.merchantId };
}
