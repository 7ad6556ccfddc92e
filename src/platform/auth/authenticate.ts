import type { MerchantPrincipal, Services } from '../context.js';
import type { Em } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import { header } from '../rest/headers.js';
import type { HttpRequest } from '../rest/http-types.js';
import { digest, digestsEqual } from './digest.js';
import { verifyJwt } from './jwt.js';

/** The credentials of a request, wherever they travel (HTTP headers, or a graphql-ws `connection_init` payload). */
export interface PresentedCredentials {
  authorization: string | undefined;
  subscriptionKey: string | undefined;
}

export function credentialsFromRequest(request: HttpRequest): PresentedCredentials {
  return {
    authorization: header(request, 'Authorization'),
    subscriptionKey: header(request, 'Ocp-Apim-Subscription-Key'),
  };
}

/** Verifies the bearer token and the subscription key it was issued with. */
export function authenticate(services: Services, credentials: PresentedCredentials): MerchantPrincipal {
  const authorization = credentials.authorization;
  // "Bearer" is case-sensitive in the public definition (FACTS §3).
  if (!authorization?.startsWith('Bearer ') || authorization.slice(7).trim() === '') {
    throw new AppError('UNAUTHORIZED', 'A bearer access token is required in the Authorization header', [
      { name: 'Authorization', reason: 'Expected "Bearer <access token>"' },
    ]);
  }
  const verdict = verifyJwt(authorization.slice(7).trim(), services.config.tokenSecret, Math.floor(services.clock.now().getTime() / 1000));
  if (!verdict.ok) throw new AppError('UNAUTHORIZED', verdict.reason, [{ name: 'Authorization', reason: verdict.reason }]);
  const key = credentials.subscriptionKey;
  if (key === undefined || !digestsEqual(digest(key), verdict.claims.skd)) {
    throw new AppError('UNAUTHORIZED', 'The Ocp-Apim-Subscription-Key is missing or does not match the access token', [
      { name: 'Ocp-Apim-Subscription-Key', reason: 'Missing or not the key the access token was issued with' },
    ]);
  }
  return { kind: 'merchant', clientId: verdict.claims.sub, merchantId: verdict.claims.mid, tokenExpiresAt: verdict.claims.exp };
}

/** A merchant may act only for its own sales units. */
export async function assertActsFor(services: Services, em: Em, principal: MerchantPrincipal, msn: string): Promise<void> {
  const owner = await services.salesUnits.ownerOf(em, msn);
  if (owner !== principal.merchantId) {
    throw new AppError('FORBIDDEN_SALES_UNIT', `The caller may not act for Merchant-Serial-Number ${msn}`, [
      { name: 'Merchant-Serial-Number', reason: 'Not a sales unit of the caller' },
    ]);
  }
}
