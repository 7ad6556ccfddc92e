import { principalOfSubscriptionKey } from '../platform/auth/subscription-key.js';
import type { HeaderLookup } from '../platform/auth/header-lookup.js';
import type { PrincipalKind } from '../platform/auth/principal.js';
import { MERCHANT_API_AUTH } from '../platform/auth/merchant-api.js';
import { scopeFor } from '../platform/auth/tenancy.js';
import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { readConsentedUserInfo } from './user-info.service.js';
import type { UserInfo } from './user-info.claims.js';
import { verifyUserToken } from './user-token.js';

/**
 * `GET userinfo/` (login browser flow): the user's token names the consent; the subscription key must be one of
 * a client that may act for the sales unit the user consented to (its merchant, or a partner connected to it), so
 * a token that leaks to another merchant reads nothing with that merchant's key.
 */
export async function readUserInfoWithUserToken(services: Services, lookup: HeaderLookup): Promise<UserInfo> {
  // A token lives in real time; the consent it names, in its sales unit's (the unit's test clock).
  const claims = verifyUserToken(services.config, lookup('Authorization'), services.clock.now());
  const em = forkEm(services.orm);
  const key = lookup('Ocp-Apim-Subscription-Key');
  const principal = key === undefined ? undefined : await principalOfSubscriptionKey(em, key);
  if (!principal) {
    throw new AppError('UNAUTHORIZED', 'The Ocp-Apim-Subscription-Key is missing or unknown', [
      { name: 'Ocp-Apim-Subscription-Key', reason: 'Missing or unknown' },
    ]);
  }
  const accepted: readonly PrincipalKind[] = MERCHANT_API_AUTH.accepts;
  if (!accepted.includes(principal.kind)) {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'These credentials may not use this interface', [
      { name: 'Ocp-Apim-Subscription-Key', reason: `Not accepted here: a key of a ${principal.kind}` },
    ]);
  }
  const msn = lookup('Merchant-Serial-Number');
  if (msn !== undefined && msn !== claims.msn) {
    throw new AppError('FORBIDDEN_SALES_UNIT', 'The user consented to share with another sales unit', [
      { name: 'Merchant-Serial-Number', reason: 'Not the sales unit of the user access token' },
    ]);
  }
  await scopeFor(services, em, principal, claims.msn);
  return readConsentedUserInfo(em, claims.cid, services.testClocks.of(claims.msn).now());
}
