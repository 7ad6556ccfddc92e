import { randomUUID } from 'node:crypto';
import type { Services } from '../context.js';
import type { Em } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import { ApiClient } from './api-client.entity.js';
import { assertActsFor } from './authenticate.js';
import { digest, digestsEqual } from './digest.js';
import { signJwt } from './jwt.js';

export interface AccessTokenRequest {
  clientId: string | undefined;
  clientSecret: string | undefined;
  subscriptionKey: string | undefined;
  msn: string | undefined;
}

/** The documented response: every field a string (FACTS §3). */
export interface AccessTokenResponse {
  token_type: 'Bearer';
  expires_in: string;
  ext_expires_in: string;
  expires_on: string;
  not_before: string;
  resource: string;
  access_token: string;
}

export async function issueAccessToken(services: Services, em: Em, request: AccessTokenRequest): Promise<AccessTokenResponse> {
  const invalid = new AppError(
    'INVALID_CLIENT_CREDENTIALS',
    'The client_id, client_secret or Ocp-Apim-Subscription-Key is missing or wrong',
  );
  const { clientId, clientSecret, subscriptionKey } = request;
  if (!clientId || !clientSecret || !subscriptionKey) throw invalid;
  const client = await em.findOne(ApiClient, { clientId });
  if (
    !client ||
    !digestsEqual(digest(clientSecret), client.clientSecretDigest) ||
    !digestsEqual(digest(subscriptionKey), client.subscriptionKeyDigest)
  ) {
    throw invalid;
  }
  const principal = { kind: 'merchant' as const, clientId, merchantId: client.merchantId };
  if (request.msn) await assertActsFor(services, em, principal, request.msn);

  const now = Math.floor(services.clock.now().getTime() / 1000);
  const lifetime = services.config.tokenLifetimeSeconds;
  const accessToken = signJwt(
    {
      iss: services.config.publicUrl,
      sub: clientId,
      mid: client.merchantId,
      skd: client.subscriptionKeyDigest,
      iat: now,
      nbf: now,
      exp: now + lifetime,
      jti: randomUUID(),
    },
    services.config.tokenSecret,
  );
  return {
    token_type: 'Bearer',
    expires_in: String(lifetime),
    ext_expires_in: String(lifetime),
    expires_on: String(now + lifetime),
    not_before: String(now),
    resource: services.config.publicUrl,
    access_token: accessToken,
  };
}
